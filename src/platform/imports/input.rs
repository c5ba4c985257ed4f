//! An export as the user has it, read in place: the zip the tool gave them,
//! the folder they unzipped it into (with, for Claude's newer exports, the
//! several zips its manifest links to: `conversations-000.zip`,
//! `projects-000.zip`, `memories-000.zip`), or one JSON file. Nothing is
//! extracted: a zip's entry is decompressed as it is read (the `zip` crate,
//! over a read-only file handle), so a 2 GB export needs no disk and no
//! more memory than the reader asks for.
//!
//! Only `.json` entries are listed: the exports' images and uploads are not
//! memory pms keeps.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::FormatError;

/// Deepest folder level searched below a folder given as the input.
const MAX_DEPTH: usize = 3;

/// An export's JSON files, wherever they are in it.
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub container: Container,
    pub entries: Vec<Entry>,
}

/// What the user gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Zip,
    Folder,
    /// One file, whatever its name: it is the one to read.
    File,
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// Its path inside the export, `/`-separated (`projects/<uuid>.json`).
    pub name: String,
    /// Uncompressed size in bytes.
    pub size: u64,
    /// How errors name it: `export.zip:conversations.json`, or the file.
    pub display: String,
    at: At,
}

#[derive(Debug, Clone)]
enum At {
    File(PathBuf),
    Zip { zip: PathBuf, index: usize },
}

impl Input {
    /// Lists `path`: a zip, a folder, or a single JSON file. `fix` is what
    /// to tell the user when it cannot be read at all.
    pub fn open(path: &Path, fix: &str) -> Result<Input, FormatError> {
        let shown = path.display().to_string();
        let meta = std::fs::metadata(path)
            .map_err(|e| FormatError::new(&shown, format!("cannot be read ({e})"), fix))?;
        let mut entries = Vec::new();
        let container = if meta.is_dir() {
            Container::Folder
        } else if is_zip(path) {
            Container::Zip
        } else {
            Container::File
        };
        if container == Container::Folder {
            walk(path, path, 0, &mut entries, fix)?;
        } else if container == Container::Zip {
            zip_entries(path, &shown, &mut entries, fix)?;
        } else {
            entries.push(Entry {
                name: file_name(path),
                size: meta.len(),
                display: shown,
                at: At::File(path.to_path_buf()),
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name).then(a.display.cmp(&b.display)));
        Ok(Input {
            path: path.to_path_buf(),
            container,
            entries,
        })
    }

    /// Entries whose file name is `name` (`conversations.json`), in order.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries.iter().filter(move |e| e.file_name() == name)
    }

    /// Entries directly inside a folder named `folder` (`projects/*.json`).
    pub fn in_folder<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.parent_name() == Some(folder))
    }
}

impl Entry {
    pub fn file_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }

    pub fn parent_name(&self) -> Option<&str> {
        let mut parts = self.name.rsplit('/');
        parts.next();
        parts.next()
    }

    /// Runs `f` on the entry's bytes as a stream.
    pub fn read<T, E: From<FormatError>>(
        &self,
        fix: &str,
        f: impl FnOnce(&mut dyn Read) -> Result<T, E>,
    ) -> Result<T, E> {
        let unreadable = |e: &dyn std::fmt::Display| {
            FormatError::new(&self.display, format!("cannot be read ({e})"), fix)
        };
        match &self.at {
            At::File(p) => {
                let file = File::open(p).map_err(|e| unreadable(&e))?;
                f(&mut BufReader::with_capacity(1 << 16, file))
            }
            At::Zip { zip, index } => {
                let file = File::open(zip).map_err(|e| unreadable(&e))?;
                let mut archive =
                    zip::ZipArchive::new(BufReader::new(file)).map_err(|e| unreadable(&e))?;
                let mut entry = archive.by_index(*index).map_err(|e| unreadable(&e))?;
                f(&mut entry)
            }
        }
    }

    /// The whole entry, parsed as one JSON document (a small file: users,
    /// memories, one project). Errors name the line and column.
    pub fn parse<T: serde::de::DeserializeOwned>(&self, fix: &str) -> Result<T, FormatError> {
        self.read(fix, |r| {
            serde_json::from_reader::<_, T>(r).map_err(|e| {
                let what = if e.is_eof() {
                    "the file is cut short".to_string()
                } else {
                    e.to_string()
                };
                FormatError::new(
                    &self.display,
                    format!("line {}, column {}: {what}", e.line(), e.column()),
                    fix,
                )
            })
        })
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A zip by its first bytes (`PK\x03\x04`, or `PK\x05\x06` when empty),
/// whatever its name.
fn is_zip(p: &Path) -> bool {
    let mut head = [0u8; 4];
    File::open(p)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == *b"PK\x03\x04" || head == *b"PK\x05\x06")
}

fn zip_entries(
    zip: &Path,
    shown: &str,
    out: &mut Vec<Entry>,
    fix: &str,
) -> Result<(), FormatError> {
    let bad = |e: &dyn std::fmt::Display| {
        FormatError::new(
            shown,
            format!(
                "is not a complete zip file ({e}); it may have been cut short while downloading"
            ),
            fix,
        )
    };
    let file = File::open(zip).map_err(|e| bad(&e))?;
    let archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| bad(&e))?;
    for index in 0..archive.len() {
        let Ok(e) = archive.by_index_data(index) else {
            continue;
        };
        let Ok(name) = e.name() else { continue };
        let name = name.trim_start_matches("./").to_string();
        if e.is_dir() || !name.ends_with(".json") || name.split('/').any(|c| c == "..") {
            continue;
        }
        out.push(Entry {
            display: format!("{shown}:{name}"),
            name,
            size: e.size(),
            at: At::Zip {
                zip: zip.to_path_buf(),
                index,
            },
        });
    }
    Ok(())
}

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    out: &mut Vec<Entry>,
    fix: &str,
) -> Result<(), FormatError> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let p = e.path();
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            if depth < MAX_DEPTH {
                walk(root, &p, depth + 1, out, fix)?;
            }
        } else if name.ends_with(".zip") && depth <= 1 && is_zip(&p) {
            zip_entries(&p, &p.display().to_string(), out, fix)?;
        } else if name.ends_with(".json") && meta.is_file() {
            out.push(Entry {
                name: p
                    .strip_prefix(root)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/"),
                size: meta.len(),
                display: p.display().to_string(),
                at: At::File(p),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(path: &Path, files: &[(&str, &str)]) {
        let mut w = zip::ZipWriter::new(File::create(path).unwrap());
        for (name, body) in files {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(body.as_bytes()).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn zips_folders_and_the_zips_a_manifest_names_list_alike() {
        let dir = tempfile::tempdir().unwrap();
        let z = dir.path().join("export.zip");
        zip_of(
            &z,
            &[
                ("conversations.json", "[]"),
                ("file-abc.png", "png"),
                ("projects/p1.json", "{}"),
            ],
        );
        let input = Input::open(&z, "fix").unwrap();
        let names: Vec<&str> = input.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["conversations.json", "projects/p1.json"]);
        assert_eq!(input.in_folder("projects").count(), 1);
        let text = input.entries[0]
            .read::<String, FormatError>("fix", |r| {
                let mut s = String::new();
                r.read_to_string(&mut s).unwrap();
                Ok(s)
            })
            .unwrap();
        assert_eq!(text, "[]");
        assert_eq!(
            input.entries[0].display,
            format!("{}:conversations.json", z.display())
        );

        let folder = dir.path().join("manifest");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        zip_of(
            &folder.join("memories-000.zip"),
            &[("memories/acct.json", "{}")],
        );
        std::fs::write(folder.join("sub/users.json"), "[]").unwrap();
        std::fs::write(folder.join("notes.txt"), "x").unwrap();
        let input = Input::open(&folder, "fix").unwrap();
        let names: Vec<&str> = input.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["memories/acct.json", "sub/users.json"]);
        assert_eq!(input.named("users.json").count(), 1);
    }

    #[test]
    fn a_zip_cut_short_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let z = dir.path().join("export.zip");
        zip_of(&z, &[("conversations.json", &"[{}]".repeat(1000))]);
        let bytes = std::fs::read(&z).unwrap();
        std::fs::write(&z, &bytes[..bytes.len() / 2]).unwrap();
        let err = Input::open(&z, "download it again").unwrap_err();
        assert!(err.problem.contains("not a complete zip file"), "{err}");
        assert_eq!(err.fix, "download it again");
    }
}
