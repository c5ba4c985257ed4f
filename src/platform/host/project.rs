//! The project a folder belongs to: the root of its git work tree, else
//! the folder itself. A lesson scoped to a project ("in this repo") applies
//! in sessions whose folder is inside it.

use std::path::{Path, PathBuf};

/// The git root above `dir` (a `.git` folder or file, as worktrees and
/// submodules have), else `dir`; absolute, with symlinks resolved when the
/// folder exists.
pub fn root_of(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map_or_else(|| dir.clone(), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_git_root_above_a_folder_is_its_project() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("web/src")).unwrap();
        let root = root_of(&repo.join("web/src"));
        assert_eq!(root, repo.canonicalize().unwrap());
        let loose = t.path().join("loose");
        std::fs::create_dir_all(&loose).unwrap();
        assert_eq!(root_of(&loose), loose.canonicalize().unwrap());
    }
}
