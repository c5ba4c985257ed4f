#!/usr/bin/env bash
# Build pms from this checkout, install it to ~/.cargo/bin, and run the
# guided setup. Arguments are passed to `pms init`, so an unattended install
# is: scripts/install.sh --yes --name "Ada Lovelace" --domains product,growth
set -euo pipefail
cd "$(dirname "$0")/.."
cargo install --locked --path .
exec "${CARGO_HOME:-$HOME/.cargo}/bin/pms" init "$@"
