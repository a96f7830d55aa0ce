//! Access control records: operator grants, registrations (Argon2id hashes) and issued tokens.
//!
//! The store keeps only hashes of tokens and passwords. The token service and the `access` admin
//! commands use this trait; the data API caches verified tokens in memory and re-checks them here at
//! most every few seconds so revocations propagate to every replica within 60 s.

use crate::Result;
use gridprint_core::secret::Secret;

/// Trims and lower-cases an email and checks its rough shape (one `@`, a dot in the domain, no
/// spaces or control characters, at most 254 characters). Every entry point (admin commands, token
/// service) normalises with this, so `Ada@Example.org ` and `ada@example.org` are one person.
pub fn normalize_email(raw: &str) -> Option<String> {
    let e = raw.trim().to_lowercase();
    let ok = e.len() <= 254
        && e.matches('@').count() == 1
        && e.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty() && d.contains('.') && !d.starts_with('.') && !d.ends_with('.')
        })
        && !e.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then_some(e)
}

/// What a failed registration insert reports: any conflict (already registered, or no grant for
/// the foreign key) is one message; other errors pass through.
pub fn registration_error(e: crate::StoreError) -> crate::StoreError {
    match e {
        crate::StoreError::Conflict(_) => {
            crate::StoreError::Conflict("already registered or no grant".into())
        }
        other => other,
    }
}

/// One row of `gridprint access list`.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantRow {
    pub email: String,
    /// Unix seconds.
    pub granted_at: i64,
    pub registered: bool,
    /// Unix seconds of the last token issued, if any.
    pub last_token_at: Option<i64>,
    /// The account's own request rate limit (its tier), if the operator set one.
    pub limit: Option<AccountLimit>,
    /// The account's own cap on active API keys, if the operator set one (else
    /// [`DEFAULT_MAX_API_KEYS`]).
    pub max_api_keys: Option<u32>,
}

/// An account's request rate limit, shared by all its tokens: `rate_per_second` sustained with
/// bursts of up to `burst` requests. Set by `gridprint access grant|set-limit`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccountLimit {
    pub rate_per_second: f64,
    pub burst: u32,
}

impl AccountLimit {
    /// Reads the two nullable columns (both set, or no limit of its own).
    pub fn from_columns(rate: Option<f64>, burst: Option<i64>) -> Option<AccountLimit> {
        match (rate, burst) {
            (Some(rate_per_second), Some(b)) => Some(AccountLimit {
                rate_per_second,
                burst: u32::try_from(b).unwrap_or(u32::MAX),
            }),
            _ => None,
        }
    }
}

/// A token as stored: only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// SHA-256 of the token, hex.
    pub token_hash: Secret,
    pub email: String,
    pub issued_at: i64,
    pub expires_at: i64,
}

/// An API key as listed (`gridprint access key list`): never the key nor its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRow {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub created_at: i64,
    /// Unix seconds; `None`: the key does not expire.
    pub expires_at: Option<i64>,
    /// Unix seconds of the last store confirmation of the key (at most one per replica every 30 s).
    pub last_used_at: Option<i64>,
}

/// A new API key as stored: only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    /// SHA-256 of the key, hex.
    pub key_hash: Secret,
    pub email: String,
    pub name: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

/// What [`AccessStore::insert_api_key`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyInsert {
    /// The key is stored under this id.
    Created(i64),
    /// Nothing stored: the account already holds this many active (unexpired) keys, its cap.
    AtLimit(u32),
}

/// The most active (unexpired) API keys an account holds unless the operator set its own cap
/// (`gridprint access grant|set-limit --max-keys N`).
pub const DEFAULT_MAX_API_KEYS: u32 = 20;
/// The most keys one listing answers (`access key list`, the token service's `list`); the next
/// page starts after the last id of this one.
pub const API_KEY_PAGE: u32 = 100;

/// The expiry given to a key without one where a [`TokenRecord`] needs a time (9999-12-31T23:59:59Z).
pub const NEVER_EXPIRES: i64 = 253_402_300_799;

/// The tables [`AccessStore::reset`] deletes an email's rows from, in this order, in one
/// transaction; it answers whether the last one held a row.
pub const RESET_TABLES: &[&str] = &["api_key", "token", "registration"];
/// The same for [`AccessStore::revoke`]: a reset's tables, then the grant.
pub const REVOKE_TABLES: &[&str] = &["api_key", "token", "registration", "access_grant"];

/// Grants, registrations and tokens. Emails are passed already trimmed and lower-cased.
pub trait AccessStore {
    /// Grants access; returns false if the email already had a grant (then nothing changes).
    /// `code_hash`: the SHA-256 (hex) of the grant's one-time registration code, which `register`
    /// will need; `None` (`access grant --no-code`): registration without a code, as on the
    /// reference service.
    fn grant(&self, email: &str, code_hash: Option<&str>, now: i64) -> Result<bool>;
    /// Replaces the registration code of a grant that is not registered (a new code for a lost
    /// one, or after [`AccessStore::reset`]); returns false if the email has no grant or is
    /// registered.
    fn set_registration_code(&self, email: &str, code_hash: Option<&str>) -> Result<bool>;
    /// The registration code hash of a grant: `None` if the email has no grant, `Some(None)` for a
    /// grant without a code.
    fn registration_code(&self, email: &str) -> Result<Option<Option<String>>>;
    /// Removes grant, registration and tokens; returns false if there was nothing to revoke.
    fn revoke(&self, email: &str) -> Result<bool>;
    /// Drops the registration and tokens, keeps the grant; returns false if not registered.
    fn reset(&self, email: &str) -> Result<bool>;
    /// All grants, sorted by email.
    fn list_grants(&self) -> Result<Vec<GrantRow>>;
    /// Whether the email has a grant.
    fn has_grant(&self, email: &str) -> Result<bool>;
    /// Stores a registration; `Err(StoreError::Conflict)` if already registered.
    fn register(&self, email: &str, password_hash: &str, now: i64) -> Result<()>;
    /// The stored password hash of a registered email.
    fn password_hash(&self, email: &str) -> Result<Option<String>>;
    /// Stores an issued token (hash only).
    fn insert_token(&self, token: &TokenRecord) -> Result<()>;
    /// Sets (or with `None` removes) an account's own rate limit; returns false if the email has no
    /// grant. Stores without tiers (test doubles) refuse.
    fn set_limit(&self, email: &str, limit: Option<AccountLimit>) -> Result<bool> {
        let _ = (email, limit);
        Err(crate::StoreError::Other(
            "this store keeps no account limits".into(),
        ))
    }
    /// An account's own rate limit, if set (stores without tiers: none).
    fn account_limit(&self, email: &str) -> Result<Option<AccountLimit>> {
        let _ = email;
        Ok(None)
    }
    /// Looks a token up by hash; `None` if unknown or its email's grant was revoked or reset.
    fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>>;
    /// Sets (or with `None` removes) an account's own cap on active API keys; returns false if
    /// the email has no grant. Stores without keys (test doubles) refuse.
    fn set_max_api_keys(&self, email: &str, max: Option<u32>) -> Result<bool> {
        let _ = (email, max);
        Err(crate::StoreError::Other(
            "this store keeps no API keys".into(),
        ))
    }
    /// Stores a new API key (hash only) for an email with a grant, unless the account already holds
    /// its cap of keys unexpired at `key.created_at` (its own, else [`DEFAULT_MAX_API_KEYS`]); the
    /// count and the insert are one step, so concurrent creations cannot pass the cap. An email
    /// without a grant is an error. Stores without keys (test doubles) refuse.
    fn insert_api_key(&self, key: &NewApiKey) -> Result<KeyInsert> {
        let _ = key;
        Err(crate::StoreError::Other(
            "this store keeps no API keys".into(),
        ))
    }
    /// The API keys of `email` (all when `None`) with an id above `after_id`, by id, at most
    /// `limit` of them.
    fn list_api_keys(
        &self,
        email: Option<&str>,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<ApiKeyRow>> {
        let _ = (email, after_id, limit);
        Ok(Vec::new())
    }
    /// Deletes an API key (only of `email`, when given); false if there is no such key.
    fn revoke_api_key(&self, id: i64, email: Option<&str>) -> Result<bool> {
        let _ = (id, email);
        Ok(false)
    }
    /// Looks an API key up by hash, as a [`TokenRecord`] (`issued_at` its creation, `expires_at`
    /// [`NEVER_EXPIRES`] without an expiry); `None` if unknown, revoked, or its email's grant is gone.
    fn find_api_key(&self, key_hash: &str) -> Result<Option<TokenRecord>> {
        let _ = key_hash;
        Ok(None)
    }
    /// Records that the key was used at `now` (best effort: callers ignore a failure).
    fn touch_api_key(&self, key_hash: &str, now: i64) -> Result<()> {
        let _ = (key_hash, now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_email;

    #[test]
    fn emails_are_trimmed_and_lowercased() {
        assert_eq!(
            normalize_email("  Ada@Example.ORG ").as_deref(),
            Some("ada@example.org")
        );
        assert_eq!(normalize_email("nope"), None);
        assert_eq!(normalize_email("a b@c.d"), None);
        assert_eq!(normalize_email("a@b@c.d"), None);
    }
}
