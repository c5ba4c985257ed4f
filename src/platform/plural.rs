//! Counted nouns for messages: "1 file", "2 files", never "1 file(s)".

/// `n` and the noun in the form `n` takes: `count(1, "file", "files")` is
/// "1 file", `count(0, "file", "files")` is "0 files".
pub fn count(n: impl TryInto<u64>, one: &str, many: &str) -> String {
    // Counts are usize or u64; neither reaches u64::MAX.
    let n: u64 = n.try_into().unwrap_or(u64::MAX);
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(count(1u32, "file", "files"), "1 file");
        assert_eq!(count(0u32, "file", "files"), "0 files");
        assert_eq!(count(2usize, "problem", "problems"), "2 problems");
    }
}
