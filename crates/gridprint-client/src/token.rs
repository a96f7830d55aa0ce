//! Tokens and where they are kept between calls: [`AccessToken`] (redacted in `Debug`), the
//! [`TokenStore`] trait for a persistent cache, and [`FileTokenStore`], one 0600 file per server and
//! email under the user's cache directory, so command-line runs reuse a token for its day instead
//! of asking for a new one each time.
//!
//! A stored token is used until 30 s before its `expires_at` ([`EXPIRY_MARGIN`]). The store is a
//! cache: a file that cannot be read or written is logged at debug level and ignored.

pub use gridprint_core::secret::Secret;
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};
use time::OffsetDateTime;

/// A token is renewed this long before its `expires_at`.
pub const EXPIRY_MARGIN: time::Duration = time::Duration::seconds(30);

/// A Bearer token and when it expires.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken {
    token: Secret,
    /// When the server stops accepting it.
    pub expires_at: OffsetDateTime,
}

impl AccessToken {
    pub fn new(token: impl Into<String>, expires_at: OffsetDateTime) -> AccessToken {
        AccessToken {
            token: Secret::new(token.into()),
            expires_at,
        }
    }

    /// The token, for the `Authorization` header.
    pub fn secret(&self) -> &str {
        self.token.expose()
    }

    /// Whether the token may still be used at `now` (until [`EXPIRY_MARGIN`] before expiry).
    pub fn is_fresh(&self, now: OffsetDateTime) -> bool {
        now < self.expires_at - EXPIRY_MARGIN
    }
}

impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessToken")
            .field("token", &self.token)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// Which server and account a stored token belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TokenKey {
    /// The token service URL (`…/token-request/`).
    pub token_url: String,
    /// The email, as configured.
    pub email: String,
}

impl TokenKey {
    /// A file-name-safe digest of the key.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.token_url.as_bytes());
        h.update([0u8]);
        h.update(self.email.trim().to_lowercase().as_bytes());
        hex::encode(&h.finalize()[..16])
    }
}

/// A persistent token cache shared between client instances (and processes).
pub trait TokenStore: Send + Sync {
    /// The stored token for `key`, if any (fresh or not: the client checks).
    fn load(&self, key: &TokenKey) -> Option<AccessToken>;
    /// Keeps `token` for `key`, replacing any previous one.
    fn save(&self, key: &TokenKey, token: &AccessToken);
    /// Forgets the token for `key` (the server rejected it).
    fn remove(&self, key: &TokenKey);
}

/// Tokens as JSON files `DIR/<digest>.json`, created with permissions 0600 in a 0700 directory.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct StoredToken {
    token_url: String,
    email: String,
    access_token: String,
    expires_at: String,
}

impl FileTokenStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: impl Into<PathBuf>) -> FileTokenStore {
        FileTokenStore { dir: dir.into() }
    }

    /// The store under the user's cache directory: `$XDG_CACHE_HOME/gridprint/tokens` or
    /// `~/.cache/gridprint/tokens`; `None` when neither variable is set.
    pub fn in_user_cache() -> Option<FileTokenStore> {
        user_cache_dir().map(|d| FileTokenStore::new(d.join("gridprint").join("tokens")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding the token of `key`.
    pub fn path_for(&self, key: &TokenKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.digest()))
    }

    fn try_save(&self, key: &TokenKey, token: &AccessToken) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        let body = serde_json::to_vec(&StoredToken {
            token_url: key.token_url.clone(),
            email: key.email.clone(),
            access_token: token.secret().to_string(),
            expires_at: gridprint_core::slot::format_timestamp(token.expires_at),
        })
        .map_err(std::io::Error::other)?;
        write_private_file(&self.path_for(key), &body)
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, key: &TokenKey) -> Option<AccessToken> {
        let bytes = std::fs::read(self.path_for(key)).ok()?;
        let stored: StoredToken = serde_json::from_slice(&bytes).ok()?;
        if stored.token_url != key.token_url || stored.email != key.email {
            return None;
        }
        let expires_at = gridprint_core::slot::parse_timestamp(&stored.expires_at).ok()?;
        Some(AccessToken::new(stored.access_token, expires_at))
    }

    fn save(&self, key: &TokenKey, token: &AccessToken) {
        if let Err(e) = self.try_save(key, token) {
            tracing::debug!(error = %e, dir = %self.dir.display(), "cannot write the token cache");
        }
    }

    fn remove(&self, key: &TokenKey) {
        let _ = std::fs::remove_file(self.path_for(key));
    }
}

/// `$XDG_CACHE_HOME`, else `$HOME/.cache`.
pub fn user_cache_dir() -> Option<PathBuf> {
    env_dir("XDG_CACHE_HOME").or_else(|| env_dir("HOME").map(|h| h.join(".cache")))
}

/// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
pub fn user_config_dir() -> Option<PathBuf> {
    env_dir("XDG_CONFIG_HOME").or_else(|| env_dir("HOME").map(|h| h.join(".config")))
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// Creates `dir` (and parents); a directory this creates is private to the user (0700 on Unix).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// Writes `body` to `path` atomically (temporary file + rename) with permissions 0600 on Unix, so the
/// secret is never readable by others, not even for a moment.
pub fn write_private_file(path: &Path, body: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let result = (|| {
        let mut f = o.open(&tmp)?;
        #[cfg(unix)]
        std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        f.write_all(body)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets() {
        let t = AccessToken::new("abcdef0123", OffsetDateTime::UNIX_EPOCH);
        let s = format!("{t:?} {:?}", Secret::new("hunter2hunter2".to_string()));
        assert!(!s.contains("abcdef0123") && !s.contains("hunter2"), "{s}");
    }

    #[test]
    fn freshness_has_a_30_second_margin() {
        let exp = OffsetDateTime::UNIX_EPOCH + time::Duration::days(1);
        let t = AccessToken::new("x", exp);
        assert!(t.is_fresh(exp - time::Duration::seconds(31)));
        assert!(!t.is_fresh(exp - time::Duration::seconds(30)));
    }

    #[test]
    fn file_store_round_trip_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("tokens"));
        let key = TokenKey {
            token_url: "http://127.0.0.1:8000/token-request/".into(),
            email: "ada@example.org".into(),
        };
        assert!(store.load(&key).is_none());
        let t = AccessToken::new(
            "f".repeat(64),
            OffsetDateTime::UNIX_EPOCH + time::Duration::days(20000),
        );
        store.save(&key, &t);
        assert_eq!(store.load(&key), Some(t));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path_for(&key))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(store.dir()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let other = TokenKey {
            email: "bob@example.org".into(),
            ..key.clone()
        };
        assert!(store.load(&other).is_none());
        store.remove(&key);
        assert!(store.load(&key).is_none());
    }
}
