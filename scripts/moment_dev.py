#!/usr/bin/env python3
"""Writes tests/data/moment_dev.toml: the labelled dev set for memory at the
moment of need (error recall, file history, continuity), in the format of
tests/data/moment_blind.toml (see tests/moment.rs).

Each known error is an episode of a past session: the error, what the agent
said and ran next (the fix). It comes back in a new session changed the way
a rerun changes it (other paths, numbers, hashes; sometimes another command
or project). The never-seen errors are half near misses (the same kind of
error naming something else) and half errors of kinds no session met.
Run: python3 scripts/moment_dev.py > tests/data/moment_dev.toml
"""

import json

A = "/home/ana"
SHOP, WEB, DATA, OPS = f"{A}/shop", f"{A}/web", f"{A}/data", f"{A}/ops"

# (project, command, output, fix said, fix command, recurrence output, recurrence project)
KNOWN = [
    (SHOP, "cargo build", "   Compiling openssl-sys v0.9.102\nerror: failed to run custom build command for `openssl-sys v0.9.102`\n  Could not find directory of OpenSSL installation, and this `-sys` crate cannot\n  proceed without this knowledge.",
     "openssl-sys needs the OpenSSL headers and pkg-config on this machine. Installing libssl-dev and pkg-config fixed the build.", "sudo apt-get install -y pkg-config libssl-dev",
     "   Compiling openssl-sys v0.9.104\nerror: failed to run custom build command for `openssl-sys v0.9.104`\n  Could not find directory of OpenSSL installation, and this `-sys` crate cannot\n  proceed without this knowledge.", WEB),
    (SHOP, "cargo test", "error[E0599]: no method named `try_next` found for struct `Pin<Box<dyn Stream<Item = Row>>>` in the current scope\n  --> src/store/orders.rs:88:27\n   |\n88 |     while let Some(row) = rows.try_next().await? {\n   |                                ^^^^^^^^ method not found",
     "try_next comes from the futures TryStreamExt trait, which was not imported. Adding `use futures::TryStreamExt;` fixed it.", "",
     "error[E0599]: no method named `try_next` found for struct `Pin<Box<dyn Stream<Item = Row>>>` in the current scope\n  --> src/store/invoices.rs:41:22\n   |\n41 |     while let Some(row) = rows.try_next().await? {", SHOP),
    (SHOP, "cargo run", "thread 'main' panicked at src/main.rs:23:10:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }",
     "Port 8080 was still held by an old shop server from another terminal. Killing it with `fuser -k 8080/tcp` freed the port.", "fuser -k 8080/tcp",
     "thread 'main' panicked at src/main.rs:31:14:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }", SHOP),
    (SHOP, "cargo sqlx prepare", "error: error returned from database: password authentication failed for user \"shop\"",
     "The local Postgres role shop had no password set after the reinstall. Setting it with ALTER ROLE and exporting DATABASE_URL from .env fixed it.", "psql -U postgres -c \"ALTER ROLE shop PASSWORD 'shop'\"",
     "error: error returned from database: password authentication failed for user \"shop\"\n  --> src/db/mod.rs:12:5", SHOP),
    (SHOP, "cargo clippy -- -D warnings", "error: this `if` has identical blocks\n  --> src/pricing/tax.rs:54:9\n   |\n   = note: `-D clippy::if-same-then-else` implied by `-D warnings`",
     "Both branches of the tax rounding if returned the same value; merged them into one expression.", "",
     "error: this `if` has identical blocks\n  --> src/pricing/discount.rs:17:5\n   |\n   = note: `-D clippy::if-same-then-else` implied by `-D warnings`", SHOP),
    (SHOP, "cargo build --release", "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lpq: No such file or directory\n          collect2: error: ld returned 1 exit status",
     "The linker needs libpq for the diesel postgres feature. Installing libpq-dev fixed the link.", "sudo apt-get install -y libpq-dev",
     "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lpq: No such file or directory\n          collect2: error: ld returned 1 exit status", OPS),
    (SHOP, "cargo update -p tokio", "error: failed to select a version for `tokio`.\n    ... required by package `shop v0.4.1 (/home/ana/shop)`\nversions that meet the requirements `^1.38` are: 1.40.0, 1.39.3\nthe package `shop` depends on `tokio`, with features: `io-uring` but `tokio` does not have these features.",
     "io-uring is not a tokio feature; it lives in the tokio-uring crate. Removed the feature from Cargo.toml.", "",
     "error: failed to select a version for `tokio`.\n    ... required by package `shop v0.5.0 (/srv/ci/shop)`\nversions that meet the requirements `^1.40` are: 1.41.1, 1.41.0\nthe package `shop` depends on `tokio`, with features: `io-uring` but `tokio` does not have these features.", SHOP),
    (SHOP, "cargo test", "error[E0277]: `Rc<RefCell<Cart>>` cannot be sent between threads safely\n   --> src/cart/service.rs:61:18",
     "The cart was shared across tokio tasks through Rc<RefCell>. Switched it to Arc<Mutex<Cart>>.", "",
     "error[E0277]: `Rc<RefCell<Cart>>` cannot be sent between threads safely\n   --> src/cart/handlers.rs:12:30", SHOP),
    (SHOP, "cargo fmt --check", "Error: rustfmt: unknown configuration option `fn_args_layout`\nWarning: the `fn_args_layout` option is deprecated. Use `fn_params_layout`. instead",
     "rustfmt renamed fn_args_layout to fn_params_layout. Renamed it in rustfmt.toml.", "",
     "Error: rustfmt: unknown configuration option `fn_args_layout`\nWarning: the `fn_args_layout` option is deprecated. Use `fn_params_layout`. instead", SHOP),
    (SHOP, "cargo run --bin migrate", "Error: while executing migration 20260811120000: error returned from database: column \"currency\" of relation \"orders\" already exists",
     "The migration had been applied by hand before. Marked it as applied with `sqlx migrate add --ignore`... no: deleted the manual column and reran the migration.", "psql shop -c 'ALTER TABLE orders DROP COLUMN currency'",
     "Error: while executing migration 20260811120000: error returned from database: column \"currency\" of relation \"orders\" already exists", SHOP),
    (SHOP, "docker compose up db", "Error response from daemon: driver failed programming external connectivity on endpoint shop-db-1 (3f9a0c2b7d41): Bind for 0.0.0.0:5432 failed: port is already allocated",
     "A host Postgres was listening on 5432. Stopped it with systemctl so the container can bind the port.", "sudo systemctl stop postgresql",
     "Error response from daemon: driver failed programming external connectivity on endpoint web-db-1 (a81c44e09b12): Bind for 0.0.0.0:5432 failed: port is already allocated", WEB),
    (WEB, "npm run build", "Type error: Property 'session' does not exist on type 'NextRequest'.\n\n  12 |   const user = req.session.user\n     |                    ^\n./app/api/orders/route.ts:12:20",
     "NextRequest has no session in the app router. Read the session with getServerSession(authOptions) instead.", "",
     "Type error: Property 'session' does not exist on type 'NextRequest'.\n\n  40 |   const s = req.session\n./app/api/cart/route.ts:40:17", WEB),
    (WEB, "npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! While resolving: web@1.2.0\nnpm ERR! Found: react@19.0.0\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^18.0.0\" from react-query@3.39.3",
     "react-query 3 only supports React 18. Migrated to @tanstack/react-query 5, which supports React 19.", "npm install @tanstack/react-query@^5",
     "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! While resolving: web@1.3.1\nnpm ERR! Found: react@19.0.1\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^18.0.0\" from react-query@3.39.3", WEB),
    (WEB, "npm test", "FAIL src/components/Checkout.test.tsx\n  ● Test suite failed to run\n    ReferenceError: TextEncoder is not defined\n      at Object.<anonymous> (node_modules/whatwg-url/lib/encoding.js:2:21)",
     "jsdom does not provide TextEncoder. Added a jest setup file that assigns TextEncoder and TextDecoder from node:util to global.", "",
     "FAIL src/components/Cart.test.tsx\n  ● Test suite failed to run\n    ReferenceError: TextEncoder is not defined\n      at Object.<anonymous> (node_modules/whatwg-url/lib/encoding.js:2:21)", WEB),
    (WEB, "npx prisma migrate dev", "Error: P1001: Can't reach database server at `localhost`:`5433`\nPlease make sure your database server is running at `localhost`:`5433`.",
     "The dev database container was not running. `docker compose up -d db` started it and the migration went through.", "docker compose up -d db",
     "Error: P1001: Can't reach database server at `localhost`:`5433`\nPlease make sure your database server is running at `localhost`:`5433`.", WEB),
    (WEB, "npm run lint", "Error: Failed to load plugin 'react-hooks' declared in '.eslintrc.json': Cannot find module 'eslint-plugin-react-hooks'",
     "The plugin was missing from devDependencies after the lockfile reset. Installed eslint-plugin-react-hooks.", "npm install -D eslint-plugin-react-hooks",
     "Error: Failed to load plugin 'react-hooks' declared in '.eslintrc.json': Cannot find module 'eslint-plugin-react-hooks'\nRequire stack:\n- /home/ana/web/node_modules/@eslint/eslintrc/dist/eslintrc.cjs", WEB),
    (WEB, "npm run dev", "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle [as _listen2] (node:net:1817:16)",
     "Another next dev was still running on port 3000. Killed it with `npx kill-port 3000`.", "npx kill-port 3000",
     "Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle [as _listen2] (node:net:1908:16)", WEB),
    (WEB, "npm run build", "Error: Dynamic server usage: Route /orders couldn't be rendered statically because it used `cookies`.",
     "The orders page reads cookies, so it cannot be prerendered. Added `export const dynamic = 'force-dynamic'` to app/orders/page.tsx.", "",
     "Error: Dynamic server usage: Route /orders couldn't be rendered statically because it used `cookies`.\n    at staticGenerationBailout (/home/ana/web/.next/server/chunks/871.js:1:21)", WEB),
    (WEB, "npx tsc --noEmit", "src/lib/api.ts(14,10): error TS2305: Module '\"zod\"' has no exported member 'infer'.",
     "zod exports the type helper as z.infer, not a named export. Changed the import to `import { z } from 'zod'` and used z.infer.", "",
     "src/lib/forms.ts(3,10): error TS2305: Module '\"zod\"' has no exported member 'infer'.", WEB),
    (WEB, "npm ci", "npm ERR! code EUSAGE\nnpm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync. Please update your lock file with `npm install` before continuing.\nnpm ERR! Missing: @types/node@20.14.2 from lock file",
     "package.json had been edited without regenerating the lock. Ran npm install and committed the new package-lock.json.", "npm install",
     "npm ERR! code EUSAGE\nnpm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync. Please update your lock file with `npm install` before continuing.\nnpm ERR! Missing: @types/node@20.16.5 from lock file", WEB),
    (WEB, "npx playwright test", "Error: browserType.launch: Executable doesn't exist at /home/ana/.cache/ms-playwright/chromium-1129/chrome-linux/chrome",
     "Playwright's browsers were not downloaded for this version. `npx playwright install chromium` fixed it.", "npx playwright install chromium",
     "Error: browserType.launch: Executable doesn't exist at /home/ana/.cache/ms-playwright/chromium-1140/chrome-linux/chrome", WEB),
    (DATA, "poetry run python etl/load.py", "Traceback (most recent call last):\n  File \"/home/ana/data/etl/load.py\", line 4, in <module>\n    import pyarrow.parquet as pq\nModuleNotFoundError: No module named 'pyarrow'",
     "pyarrow was only in the optional parquet extra. Installed it with poetry install --extras parquet.", "poetry install --extras parquet",
     "Traceback (most recent call last):\n  File \"/home/ana/data/etl/export.py\", line 9, in <module>\n    import pyarrow.parquet as pq\nModuleNotFoundError: No module named 'pyarrow'", DATA),
    (DATA, "poetry run pytest", "E   pandas.errors.InvalidIndexError: Reindexing only valid with uniquely valued Index objects\ntests/test_merge.py:31: InvalidIndexError",
     "The orders frame had duplicate order_id rows after the join. Dropping duplicates on order_id before reindex fixed the test.", "",
     "E   pandas.errors.InvalidIndexError: Reindexing only valid with uniquely valued Index objects\ntests/test_pivot.py:58: InvalidIndexError", DATA),
    (DATA, "poetry install", "The currently activated Python version 3.9.18 is not supported by the project (^3.11).\nTrying to find and use a compatible version.\nPoetry was unable to find a compatible version. If you have one, you can explicitly use it via the \"env use\" command.",
     "The shell's default python was 3.9. Pointed poetry at 3.11 with `poetry env use python3.11`.", "poetry env use python3.11",
     "The currently activated Python version 3.10.12 is not supported by the project (^3.11).\nTrying to find and use a compatible version.\nPoetry was unable to find a compatible version. If you have one, you can explicitly use it via the \"env use\" command.", DATA),
    (DATA, "poetry run python etl/extract.py", "  File \"/home/ana/data/etl/extract.py\", line 77, in fetch\n    resp.raise_for_status()\nrequests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.example.com/v2/orders?page=14",
     "The orders API rate-limits at 10 requests a second. Added a retry with exponential backoff (tenacity) around fetch.", "",
     "  File \"/home/ana/data/etl/extract.py\", line 81, in fetch\n    resp.raise_for_status()\nrequests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.example.com/v2/orders?page=3", DATA),
    (DATA, "poetry run python etl/load.py", "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) SSL SYSCALL error: EOF detected",
     "The warehouse closes idle connections after 5 minutes. Setting pool_pre_ping=True on the engine fixed the dropped connections.", "",
     "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) SSL SYSCALL error: EOF detected\n[SQL: INSERT INTO fact_orders (id, total) VALUES (%(id)s, %(total)s)]", DATA),
    (DATA, "poetry run pytest -x", "E       UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 1432: invalid continuation byte\nsrc/readers/csv_reader.py:22: UnicodeDecodeError",
     "The supplier CSVs are Latin-1, not UTF-8. Read them with encoding='latin-1'.", "",
     "E       UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 88: invalid continuation byte\nsrc/readers/csv_reader.py:22: UnicodeDecodeError", DATA),
    (DATA, "poetry run mypy src", "src/transform/prices.py:14: error: Library stubs not installed for \"requests\"  [import-untyped]\nsrc/transform/prices.py:14: note: Hint: \"python3 -m pip install types-requests\"",
     "mypy needs the requests stubs. Added types-requests to the dev group.", "poetry add --group dev types-requests",
     "src/extract/api.py:3: error: Library stubs not installed for \"requests\"  [import-untyped]\nsrc/extract/api.py:3: note: Hint: \"python3 -m pip install types-requests\"", DATA),
    (DATA, "poetry run jupyter lab", "OSError: [Errno 28] No space left on device: '/home/ana/.local/share/jupyter/runtime/kernel-8c1f.json'",
     "The home disk was full of old parquet snapshots in data/raw. Deleted the snapshots older than 30 days.", "find data/raw -name '*.parquet' -mtime +30 -delete",
     "OSError: [Errno 28] No space left on device: '/home/ana/.local/share/jupyter/runtime/kernel-19ab.json'", DATA),
    (DATA, "poetry run python -m etl.run", "KeyError: \"None of [Index(['order_date'], dtype='object')] are in the [columns]\"",
     "The new export renamed order_date to created_at. Mapped the column name in the schema config.", "",
     "KeyError: \"None of [Index(['order_date'], dtype='object')] are in the [columns]\"", DATA),
    (DATA, "dvc pull", "ERROR: failed to pull data from the cloud - Checkout failed for following targets:\ndata/raw/orders.csv\nIs your cache up to date?",
     "The dvc remote credentials had expired. Refreshed them with `dvc remote modify --local storage credentialpath` and pulled again.", "dvc remote modify --local storage credentialpath ~/.config/gcloud/dvc.json",
     "ERROR: failed to pull data from the cloud - Checkout failed for following targets:\ndata/raw/orders.csv\nIs your cache up to date?", DATA),
    (OPS, "terraform plan", "Error: Error acquiring the state lock\n\nError message: ConditionalCheckFailedException: The conditional request failed\nLock Info:\n  ID:        7c1e2a4f-93b0-4d2a-8f1e-2b6c0d9a1e55\n  Path:      ops-tfstate/prod/terraform.tfstate",
     "A crashed apply left the state lock. After checking nobody was applying, released it with terraform force-unlock.", "terraform force-unlock 7c1e2a4f-93b0-4d2a-8f1e-2b6c0d9a1e55",
     "Error: Error acquiring the state lock\n\nError message: ConditionalCheckFailedException: The conditional request failed\nLock Info:\n  ID:        0a9d7e21-5c3b-4f6e-9a10-7e2f4b8c6d33\n  Path:      ops-tfstate/staging/terraform.tfstate", OPS),
    (OPS, "kubectl apply -f k8s/", "error: error validating \"k8s/deploy.yaml\": error validating data: ValidationError(Deployment.spec.template.spec.containers[0].resources): unknown field \"limit\" in io.k8s.api.core.v1.ResourceRequirements",
     "The field is limits, plural. Fixed the typo in k8s/deploy.yaml.", "",
     "error: error validating \"k8s/worker.yaml\": error validating data: ValidationError(Deployment.spec.template.spec.containers[0].resources): unknown field \"limit\" in io.k8s.api.core.v1.ResourceRequirements", OPS),
    (OPS, "helm upgrade shop charts/shop", "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
     "A previous helm upgrade was interrupted and left the release pending-upgrade. Rolled back to the last good revision, then upgraded again.", "helm rollback shop 41",
     "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress", OPS),
    (OPS, "go test ./...", "# github.com/ana/ops/cmd/agent\ncmd/agent/main.go:14:2: missing go.sum entry for module providing package github.com/prometheus/client_golang/prometheus (imported by github.com/ana/ops/cmd/agent); to add:\n\tgo get github.com/ana/ops/cmd/agent",
     "go.sum lacked the prometheus client. `go mod tidy` added the entries.", "go mod tidy",
     "# github.com/ana/ops/cmd/probe\ncmd/probe/main.go:9:2: missing go.sum entry for module providing package github.com/prometheus/client_golang/prometheus (imported by github.com/ana/ops/cmd/probe); to add:\n\tgo get github.com/ana/ops/cmd/probe", OPS),
    (OPS, "docker build -t ops-agent .", "ERROR: failed to solve: process \"/bin/sh -c apk add --no-cache curl\" did not complete successfully: exit code: 1\n#7 1.203 ERROR: unable to select packages:\n#7 1.203   curl (no such package):",
     "The base image had moved from alpine to debian-slim, where apk does not exist. Switched the line to apt-get install -y curl.", "",
     "ERROR: failed to solve: process \"/bin/sh -c apk add --no-cache curl\" did not complete successfully: exit code: 1\n#9 0.871 ERROR: unable to select packages:\n#9 0.871   curl (no such package):", OPS),
    (OPS, "ansible-playbook site.yml", "fatal: [web-02]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Failed to connect to the host via ssh: Permission denied (publickey).\", \"unreachable\": true}",
     "web-02 was rebuilt and had no deploy key. Copied it with ssh-copy-id using the deploy user.", "ssh-copy-id -i ~/.ssh/deploy.pub deploy@web-02",
     "fatal: [web-05]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Failed to connect to the host via ssh: Permission denied (publickey).\", \"unreachable\": true}", OPS),
    (OPS, "kubectl rollout status deploy/shop", "error: deployment \"shop\" exceeded its progress deadline\nshop-7d9c6b5f4-x2k9p   0/1     ImagePullBackOff   0          5m",
     "The image tag did not exist in the registry: CI had failed to push it. Re-ran the push job and the rollout went through.", "gh run rerun 9921 --job push",
     "error: deployment \"shop\" exceeded its progress deadline\nshop-5b8f7c9d2-q7w4z   0/1     ImagePullBackOff   0          10m", OPS),
    (OPS, "terraform init", "Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/aws: locked provider registry.terraform.io/hashicorp/aws 5.31.0 does not match configured version constraint ~> 5.60",
     "The lock file pinned an old aws provider. `terraform init -upgrade` refreshed .terraform.lock.hcl.", "terraform init -upgrade",
     "Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider hashicorp/aws: locked provider registry.terraform.io/hashicorp/aws 5.40.0 does not match configured version constraint ~> 5.70", OPS),
    (OPS, "git push origin main", "To github.com:ana/ops.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:ana/ops.git'\nhint: Updates were rejected because the remote contains work that you do not have locally.",
     "Someone had pushed to main in between. Pulled with rebase and pushed again.", "git pull --rebase origin main && git push origin main",
     "To github.com:ana/shop.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:ana/shop.git'\nhint: Updates were rejected because the remote contains work that you do not have locally.", SHOP),
    (OPS, "make deploy", "make: *** [Makefile:42: deploy] Error 1\n/bin/sh: 1: envsubst: not found",
     "envsubst is part of gettext, which the new runner lacked. Installed gettext-base.", "sudo apt-get install -y gettext-base",
     "make: *** [Makefile:17: render] Error 127\n/bin/sh: 1: envsubst: not found", OPS),
    (OPS, "pre-commit run --all-files", "[ERROR] Your pre-commit configuration is unparsable.\nAn unexpected error has occurred: InvalidConfigError:\n==> File .pre-commit-config.yaml\n==> At Config()\n==> At key: repos\n=====> Expected array got dict",
     "repos in .pre-commit-config.yaml must be a list; an indent turned it into a mapping. Fixed the indentation.", "",
     "[ERROR] Your pre-commit configuration is unparsable.\nAn unexpected error has occurred: InvalidConfigError:\n==> File .pre-commit-config.yaml\n==> At Config()\n==> At key: repos\n=====> Expected array got dict", DATA),
    (WEB, "git commit -m 'checkout'", "husky - pre-commit hook exited with code 1 (error)\n✖ eslint --fix:\n/home/ana/web/src/checkout/Pay.tsx\n  18:9  error  React Hook useEffect has a missing dependency: 'total'  react-hooks/exhaustive-deps",
     "Added total to the useEffect dependency list in Pay.tsx.", "",
     "husky - pre-commit hook exited with code 1 (error)\n✖ eslint --fix:\n/home/ana/web/src/checkout/Summary.tsx\n  44:7  error  React Hook useEffect has a missing dependency: 'total'  react-hooks/exhaustive-deps", WEB),
    (SHOP, "cargo build", "error: package `time v0.3.36` cannot be built because it requires rustc 1.67.0 or newer, while the currently active rustc version is 1.65.0",
     "The machine had an old pinned toolchain. `rustup update stable` and removing the rust-toolchain override fixed it.", "rustup update stable",
     "error: package `time v0.3.36` cannot be built because it requires rustc 1.67.0 or newer, while the currently active rustc version is 1.66.1", SHOP),
]

# Errors no past session met: near misses of known kinds, then other kinds.
UNSEEN = [
    (DATA, "poetry run python etl/load.py", "Traceback (most recent call last):\n  File \"/home/ana/data/etl/load.py\", line 5, in <module>\n    import polars as pl\nModuleNotFoundError: No module named 'polars'"),
    (SHOP, "cargo build", "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lsqlite3: No such file or directory"),
    (WEB, "npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! While resolving: web@1.2.0\nnpm ERR! Found: next@15.0.3\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer next@\"^13.0.0 || ^14.0.0\" from next-auth@4.22.1"),
    (SHOP, "cargo test", "error[E0599]: no method named `execute_many` found for struct `PgPool` in the current scope\n  --> src/store/orders.rs:102:14"),
    (WEB, "npm run build", "Type error: Property 'cookies' does not exist on type 'Headers'.\n./app/api/me/route.ts:8:22"),
    (WEB, "npm test", "FAIL src/hooks/useCart.test.ts\n  ● Test suite failed to run\n    ReferenceError: structuredClone is not defined"),
    (WEB, "npx prisma migrate dev", "Error: P3006: Migration `20260901_add_sku` failed to apply cleanly to the shadow database.\nError code: P3018"),
    (OPS, "kubectl apply -f k8s/", "error: error validating \"k8s/deploy.yaml\": error validating data: ValidationError(Deployment.spec.template.spec.containers[0]): unknown field \"envFrom2\" in io.k8s.api.core.v1.Container"),
    (OPS, "terraform plan", "Error: Invalid reference\n\n  on main.tf line 14, in resource \"aws_s3_bucket\" \"logs\":\n  14:   bucket = var.bucket_nme\n\nAn input variable with the name \"bucket_nme\" has not been declared."),
    (DATA, "poetry run pytest", "E   ValueError: cannot reindex on an axis with duplicate labels\ntests/test_join.py:12: ValueError"),
    (DATA, "poetry run mypy src", "src/transform/prices.py:14: error: Library stubs not installed for \"yaml\"  [import-untyped]"),
    (SHOP, "cargo run", "thread 'main' panicked at src/main.rs:40:5:\ncalled `Option::unwrap()` on a `None` value"),
    (WEB, "npm run dev", "Error: Cannot find module '@next/env'\nRequire stack:\n- /home/ana/web/node_modules/next/dist/cli/next-dev.js"),
    (OPS, "go test ./...", "cmd/agent/main.go:22:5: undefined: metrics.NewRegistry"),
    (OPS, "docker build -t ops-agent .", "ERROR: failed to solve: failed to read dockerfile: open Dockerfile.agent: no such file or directory"),
    (OPS, "helm upgrade shop charts/shop", "Error: UPGRADE FAILED: cannot patch \"shop\" with kind Deployment: Deployment.apps \"shop\" is invalid: spec.selector: Invalid value: field is immutable"),
    (DATA, "poetry install", "Because data depends on numpy (^2.1) which doesn't match any versions, version solving failed."),
    (OPS, "ansible-playbook site.yml", "ERROR! the role 'geerlingguy.docker' was not found in /home/ana/ops/roles"),
    (SHOP, "cargo fmt --check", "Diff in /home/ana/shop/src/main.rs at line 12:\n-use axum::{Router,routing::get};\n+use axum::{routing::get, Router};"),
    (DATA, "dvc repro", "ERROR: failed to reproduce 'train': output 'models/model.pkl' does not exist"),
    (WEB, "npx tsc --noEmit", "src/lib/api.ts(20,3): error TS2322: Type 'string | undefined' is not assignable to type 'string'."),
    (SHOP, "cargo sqlx prepare", "error: error returned from database: database \"shop_test\" does not exist"),
    (OPS, "git push origin main", "remote: error: GH006: Protected branch update failed for refs/heads/main.\nremote: error: Changes must be made through a pull request."),
    (WEB, "npx playwright test", "Error: Timed out 5000ms waiting for expect(locator).toBeVisible()\nLocator: getByRole('button', { name: 'Pay now' })"),
    (DATA, "poetry run python etl/extract.py", "requests.exceptions.SSLError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: /v2/orders (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate')))"),
    (OPS, "terraform init", "Error: Backend configuration changed\n\nA change in the backend configuration has been detected, which may require migrating existing state."),
    (SHOP, "cargo build", "error[E0433]: failed to resolve: use of undeclared crate or module `chrono`\n --> src/orders/date.rs:3:5"),
    (WEB, "npm ci", "npm ERR! code EINTEGRITY\nnpm ERR! sha512-Qw2Eh7w4yxxxx integrity checksum failed when using sha512"),
    (DATA, "poetry run jupyter lab", "PermissionError: [Errno 13] Permission denied: '/home/ana/.jupyter/lab/user-settings'"),
    (OPS, "kubectl rollout status deploy/shop", "error: deployment \"shop\" exceeded its progress deadline\nshop-7d9c6b5f4-x2k9p   0/1     CrashLoopBackOff   6          5m"),
    (OPS, "make deploy", "/bin/sh: 1: kustomize: not found\nmake: *** [Makefile:42: deploy] Error 127"),
    (WEB, "git commit -m 'cart'", "husky - pre-commit hook exited with code 1 (error)\n✖ prettier --check:\n[warn] src/cart/Cart.tsx\n[warn] Code style issues found in the above file. Run Prettier with --write to fix."),
    (DATA, "poetry run python -m etl.run", "KeyError: 'customer_id'"),
    (SHOP, "cargo run --bin migrate", "Error: while executing migrations: error returned from database: relation \"payments\" does not exist"),
    (OPS, "pre-commit run --all-files", "check yaml...............................................................Failed\n- hook id: check-yaml\n- exit code: 1\nwhile parsing a block mapping in \"k8s/ingress.yaml\", line 3, column 1"),
    (SHOP, "docker compose up db", "Error response from daemon: pull access denied for shop-db, repository does not exist or may require 'docker login'"),
    (WEB, "npm run lint", "Error: Failed to load config \"next/core-web-vitals\" to extend from.\nReferenced from: /home/ana/web/.eslintrc.json"),
    (DATA, "poetry run pytest -x", "E       AssertionError: assert 1042 == 1043\ntests/test_counts.py:19: AssertionError"),
    (OPS, "ssh deploy@web-02 uptime", "ssh: connect to host web-02 port 22: Connection timed out"),
    (SHOP, "cargo clippy -- -D warnings", "error: this expression creates a reference which is immediately dereferenced by the compiler\n  --> src/pricing/tax.rs:12:19\n   = note: `-D clippy::needless-borrow` implied by `-D warnings`"),
    (WEB, "npm run build", "Error: Page \"/products/[slug]\" is missing \"generateStaticParams()\" so it cannot be used with \"output: export\" config."),
    (DATA, "dvc pull", "ERROR: unexpected error - [Errno 2] No such file or directory: '.dvc/config'"),
    (OPS, "go build ./...", "go: go.mod requires go >= 1.23 (running go 1.21.6; GOTOOLCHAIN=local)"),
    (SHOP, "cargo update -p axum", "error: package ID specification `axum` did not match any packages"),
]

SESSIONS = []  # filled below
def q(s):
    return json.dumps(s, ensure_ascii=False)

out = ["# Dev set for memory at the moment of need (written by scripts/moment_dev.py; see tests/moment.rs).",
       "# Split into a tuning and a held-out half by a hash of each case (tests/moment.rs, tuning_half).", ""]

def session(sid, project, date, turns):
    out.append("[[session]]")
    out.append(f"id = {q(sid)}")
    out.append(f"project = {q(project)}")
    out.append(f"date = {q(date)}")
    for t in turns:
        out.append("  [[session.turn]]")
        for k, v in t.items():
            if isinstance(v, bool):
                out.append(f"  {k} = {'true' if v else 'false'}")
            else:
                out.append(f"  {k} = {q(v)}")
    out.append("")

def call(tool, command="", file_path=""):
    return {"role": "tool_call", "tool": tool, "command": command, "file_path": file_path}

def result(text, err):
    return {"role": "tool_result", "is_error": err, "text": text}

# Extra content per project session (by its ordinal in the project): files
# edited with what was said, an open item, a decision. Later sessions close
# some earlier items.
EXTRA = {
    SHOP: {
        0: (["src/payments/stripe.rs"], "Switched the webhook handler in src/payments/stripe.rs to verify signatures with the raw body.", "", ""),
        1: (["src/store/orders.rs"], "Added cursor pagination to list_orders in src/store/orders.rs.", "", ""),
        2: (["src/pricing/tax.rs"], "Rounded the tax per line item in src/pricing/tax.rs, as the accountant asked.", "", ""),
        3: (["src/payments/stripe.rs"], "Added idempotency keys to the refund call in src/payments/stripe.rs.", "TODO: add the dead-letter queue for failed webhooks.", "We decided to use Postgres advisory locks for the payout job."),
        4: (["src/store/orders.rs"], "Moved the payout query out of src/store/orders.rs into its own module.", "Next step: wire the retry worker to the payout queue.", ""),
        5: ([], "The retry worker is wired to the payout queue now.", "", ""),
    },
    WEB: {
        0: (["app/api/orders/route.ts"], "Moved the session lookup in app/api/orders/route.ts to getServerSession.", "", ""),
        3: (["app/checkout/page.tsx"], "Split app/checkout/page.tsx into a server component and a client form.", "TODO: add rate limiting to the login route.", "We decided to keep the app router for all new pages."),
        4: (["app/api/orders/route.ts"], "Returned 404 from app/api/orders/route.ts for orders of other users.", "Follow-up: add the Apple Pay button to the checkout form.", ""),
        5: ([], "Rate limiting on the login route is in now (10 requests a minute).", "TODO: add the order export endpoint.", ""),
    },
    DATA: {
        0: (["etl/load.py"], "Rewrote the loader in etl/load.py to write parquet partitions by day.", "", ""),
        2: (["etl/extract.py"], "Wrapped fetch in etl/extract.py with tenacity retries.", "TODO: backfill the March partitions.", ""),
        3: ([], "The March partitions are backfilled now.", "TODO: document the partition layout in the README.", ""),
        4: (["etl/load.py"], "Made etl/load.py skip days whose partition already exists.", "", ""),
    },
    OPS: {
        1: (["main.tf"], "Moved the logs bucket in main.tf to the shared module.", "", ""),
        3: (["k8s/deploy.yaml"], "Raised the memory limit in k8s/deploy.yaml to 512Mi.", "TODO: rotate the staging keys before the audit.", "We decided to run two replicas of the worker in staging."),
        5: (["k8s/worker.yaml"], "Done: rotated the staging keys, and k8s/worker.yaml reads them from the new secret.", "", ""),
    },
}

# Episodes grouped into sessions by project, two per session.
by_project = {}
for i, k in enumerate(KNOWN):
    by_project.setdefault(k[0], []).append(i)
sessions_of_episode = {}
order = []
for project, idxs in by_project.items():
    for j in range(0, len(idxs), 2):
        order.append((project, idxs[j:j + 2]))
# interleave projects by date
ordinal = {}
for project, idxs in order:
    ordinal[(project, idxs[0])] = sum(1 for p, _ in order[:order.index((project, idxs))] if p == project)
order.sort(key=lambda p: (ordinal[(p[0], p[1][0])], p[0]))
for n, (project, idxs) in enumerate(order):
    sid = f"d{n + 1:02d}"
    day = 1 + n
    date = f"2026-08-{day:02d}T09:00:00Z" if day <= 31 else f"2026-09-{day - 31:02d}T09:00:00Z"
    turns = [{"role": "user", "text": f"Let's work on {project.rsplit('/', 1)[1]} today; first run `{KNOWN[idxs[0]][1]}`."}]
    for i in idxs:
        _, cmd, output, fix, fixcmd, _, _ = KNOWN[i]
        sessions_of_episode[i] = sid
        turns.append(call("Bash", cmd))
        turns.append(result(output, True))
        turns.append({"role": "assistant", "text": fix})
        if fixcmd:
            turns.append(call("Bash", fixcmd))
            turns.append(result("ok", False))
        turns.append(call("Bash", cmd))
        turns.append(result("finished without errors", False))
        turns.append({"role": "user", "text": "great, that works now. next thing."})
    edits, said, todo, decision = EXTRA[project].get(ordinal[(project, idxs[0])], ([], "", "", ""))
    if said:
        turns.append({"role": "assistant", "text": said})
    for e in edits:
        turns.append(call("Edit", "", f"{project}/{e}"))
        turns.append(result("The file has been updated.", False))
    if todo or decision:
        turns.append({"role": "user", "text": " ".join(x for x in [todo, decision] if x)})
        turns.append({"role": "assistant", "text": "Noted."})
    SESSIONS.append((sid, project, date, edits, turns))
    session(sid, project, date, turns)

for i, k in enumerate(KNOWN):
    project, cmd, _, _, _, again, again_project = k
    out.append("[[error]]")
    out.append(f"project = {q(again_project)}")
    out.append(f"command = {q(cmd)}")
    out.append(f"output = {q(again)}")
    out.append(f"expect = {q(sessions_of_episode[i])}")
    out.append("")
for project, cmd, output in UNSEEN:
    out.append("[[error]]")
    out.append(f"project = {q(project)}")
    out.append(f"command = {q(cmd)}")
    out.append(f"output = {q(output)}")
    out.append('expect = ""')
    out.append("")

# Edits: files with history (the sessions that edited or named them), and
# files with none (including one named only in another project).
import re
touched = {}
for sid, project, date, edits, turns in SESSIONS:
    for e in edits:
        touched.setdefault(f"{project}/{e}", set()).add(sid)
# a session that names the file (by its path in the project) in what the
# user or the agent said discussed it
for path in list(touched):
    project = "/".join(path.split("/")[:4])
    rel = path[len(project) + 1:]
    for sid, p, date, edits, turns in SESSIONS:
        if p == project and any(t["role"] in ("user", "assistant") and re.search(r"(?<![\w/.-])" + re.escape(rel) + r"(?!\w)", t["text"]) for t in turns):
            touched[path].add(sid)
for path, sids in sorted(touched.items()):
    out.append("[[edit]]")
    out.append(f"project = {q('/'.join(path.split('/')[:4]))}")
    out.append(f"file_path = {q(path)}")
    out.append(f"expect = {json.dumps(sorted(sids))}")
    out.append("")
for path in [f"{SHOP}/src/main.rs", f"{WEB}/app/layout.tsx", f"{DATA}/etl/transform.py", f"{OPS}/k8s/ingress.yaml",
             f"{WEB}/src/store/orders.rs", f"{OPS}/etl/load.py", f"{SHOP}/README.md", f"{DATA}/pyproject.toml"]:
    out.append("[[edit]]")
    out.append(f"project = {q('/'.join(path.split('/')[:4]))}")
    out.append(f"file_path = {q(path)}")
    out.append("expect = []")
    out.append("")

starts = [
    (SHOP, ["add the dead-letter queue"], ["wire the retry worker to the payout queue", "rotate the staging keys", "add rate limiting to the login route"]),
    (WEB, ["add the order export endpoint", "add the Apple Pay button"], ["add rate limiting to the login route", "backfill the March partitions"]),
    (DATA, ["document the partition layout"], ["backfill the March partitions", "add the dead-letter queue"]),
    (OPS, ["run two replicas of the worker"], ["rotate the staging keys", "add the order export endpoint"]),
]
for project, exp, rej in starts:
    out.append("[[start]]")
    out.append(f"project = {q(project)}")
    out.append(f"expect_items = {json.dumps(exp)}")
    out.append(f"reject_items = {json.dumps(rej)}")
    out.append("")

print("\n".join(out))
