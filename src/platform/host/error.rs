//! The I/O error every module reports the same way: which file, and what the
//! operating system said. Module error enums wrap it (`Io(#[from] FileError)`)
//! instead of each declaring its own `{ path, source }` pair.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct FileError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl FileError {
    pub fn new(path: impl Into<PathBuf>, source: std::io::Error) -> FileError {
        FileError {
            path: path.into(),
            source,
        }
    }

    /// The operating system's error kind (NotFound, StorageFull, ...).
    pub fn kind(&self) -> std::io::ErrorKind {
        self.source.kind()
    }
}

/// `io_result.at(path)?`: names the file an I/O error happened on.
pub trait AtPath<T> {
    fn at(self, path: &Path) -> Result<T, FileError>;
}

impl<T> AtPath<T> for std::io::Result<T> {
    fn at(self, path: &Path) -> Result<T, FileError> {
        self.map_err(|source| FileError::new(path, source))
    }
}
