//! One-time registration codes: `gridprint access grant` makes one per email ([`new_code`]) and
//! stores only its [`code_hash`]; `POST /token-request/register` needs the code (docs/api.md §4), so
//! knowing a granted email is not enough to take the account.
//!
//! A code is 128 random bits from the operating system's RNG, written as 32 upper-case hex digits in
//! groups of four (`3F9A-01BC-…`); [`code_hash`] ignores dashes, spaces and case, so a code copied
//! with or without them is the same code.

use sha2::{Digest, Sha256};

/// A new registration code (128 bits from the OS RNG), as the operator passes it on.
pub fn new_code() -> std::io::Result<String> {
    use rand::TryRng;
    let mut bytes = [0u8; 16];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| std::io::Error::other(format!("OS RNG failed: {e}")))?;
    let digits = hex::encode_upper(bytes);
    let groups: Vec<&str> = (0..digits.len())
        .step_by(4)
        .map(|i| &digits[i..i + 4])
        .collect();
    Ok(groups.join("-"))
}

/// The stored form of a code: SHA-256 (hex) of its digits without dashes or spaces, upper-cased.
///
/// A fast hash is enough here, unlike for passwords (Argon2id): the code is 128 bits from the OS
/// RNG, so even with the database in hand nobody can search the code space, and a salt or a slow
/// hash adds nothing. For the same reason comparing two hashes with `==` leaks nothing useful.
pub fn code_hash(code: &str) -> String {
    let normalized: String = code
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    hex::encode(Sha256::digest(normalized.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::{code_hash, new_code};

    #[test]
    fn codes_are_128_random_bits_and_hash_the_same_however_written() {
        let a = new_code().unwrap();
        let b = new_code().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 39, "{a}");
        assert_eq!(a.chars().filter(|c| c.is_ascii_hexdigit()).count(), 32);
        let loose = a.replace('-', " ").to_lowercase();
        assert_eq!(code_hash(&a), code_hash(&loose));
        assert_ne!(code_hash(&a), code_hash(&b));
        assert_eq!(code_hash(&a).len(), 64);
    }
}
