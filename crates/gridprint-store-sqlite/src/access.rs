//! Access records on SQLite: grants, registrations and token hashes (see `gridprint_store::access`).

use crate::{SqliteStore, map_err, query_rows};
use gridprint_store::access::{DEFAULT_MAX_API_KEYS, NEVER_EXPIRES};
use gridprint_store::access::{RESET_TABLES, REVOKE_TABLES, registration_error};
use gridprint_store::{
    AccessStore, AccountLimit, ApiKeyRow, GrantRow, KeyInsert, NewApiKey, Result, Secret,
    TokenRecord,
};
use rusqlite::{OptionalExtension, Params, Row, params};

impl AccessStore for SqliteStore {
    fn grant(&self, email: &str, code_hash: Option<&str>, now: i64) -> Result<bool> {
        let n = self.changed(
            "INSERT INTO access_grant (email, granted_at, registration_code_hash) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            params![email, now, code_hash],
        )?;
        Ok(n == 1)
    }

    fn set_registration_code(&self, email: &str, code_hash: Option<&str>) -> Result<bool> {
        let n = self.changed(
            "UPDATE access_grant SET registration_code_hash = ?2
             WHERE email = ?1 AND NOT EXISTS (SELECT 1 FROM registration r WHERE r.email = ?1)",
            params![email, code_hash],
        )?;
        Ok(n == 1)
    }

    fn registration_code(&self, email: &str) -> Result<Option<Option<String>>> {
        self.optional_row(
            "SELECT registration_code_hash FROM access_grant WHERE email = ?1",
            params![email],
            |r| r.get(0),
        )
    }

    fn revoke(&self, email: &str) -> Result<bool> {
        self.delete_rows(email, REVOKE_TABLES)
    }

    fn reset(&self, email: &str) -> Result<bool> {
        self.delete_rows(email, RESET_TABLES)
    }

    fn list_grants(&self) -> Result<Vec<GrantRow>> {
        query_rows(
            &self.lock(),
            "SELECT g.email, g.granted_at, r.email IS NOT NULL, (SELECT MAX(issued_at) FROM token t WHERE t.email = g.email),
                    g.rate_limit_per_second, g.rate_limit_burst, g.max_api_keys
             FROM access_grant g LEFT JOIN registration r ON r.email = g.email ORDER BY g.email",
            [],
            |r| {
                Ok(GrantRow {
                    email: r.get(0)?,
                    granted_at: r.get(1)?,
                    registered: r.get(2)?,
                    last_token_at: r.get(3)?,
                    limit: AccountLimit::from_columns(r.get(4)?, r.get(5)?),
                    max_api_keys: r.get(6)?,
                })
            },
        )
    }

    fn has_grant(&self, email: &str) -> Result<bool> {
        let row = self.optional_row(
            "SELECT 1 FROM access_grant WHERE email = ?1",
            params![email],
            |_| Ok(()),
        )?;
        Ok(row.is_some())
    }

    fn register(&self, email: &str, password_hash: &str, now: i64) -> Result<()> {
        self.changed(
            "INSERT INTO registration (email, password_hash, registered_at) VALUES (?1, ?2, ?3)",
            params![email, password_hash, now],
        )
        .map(|_| ())
        .map_err(registration_error)
    }

    fn password_hash(&self, email: &str) -> Result<Option<String>> {
        self.optional_row(
            "SELECT password_hash FROM registration WHERE email = ?1",
            params![email],
            |r| r.get(0),
        )
    }

    fn insert_token(&self, t: &TokenRecord) -> Result<()> {
        self.changed(
            "INSERT INTO token (token_hash, email, issued_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![t.token_hash.expose(), t.email, t.issued_at, t.expires_at],
        )
        .map(|_| ())
    }

    fn set_limit(&self, email: &str, limit: Option<AccountLimit>) -> Result<bool> {
        let n = self.changed(
            "UPDATE access_grant SET rate_limit_per_second = ?2, rate_limit_burst = ?3 WHERE email = ?1",
            params![
                email,
                limit.map(|l| l.rate_per_second),
                limit.map(|l| i64::from(l.burst))
            ],
        )?;
        Ok(n == 1)
    }

    fn account_limit(&self, email: &str) -> Result<Option<AccountLimit>> {
        let row = self.optional_row(
            "SELECT rate_limit_per_second, rate_limit_burst FROM access_grant WHERE email = ?1",
            params![email],
            |r| Ok(AccountLimit::from_columns(r.get(0)?, r.get(1)?)),
        )?;
        Ok(row.flatten())
    }

    fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
        self.optional_row(
            "SELECT t.token_hash, t.email, t.issued_at, t.expires_at FROM token t
             JOIN registration r ON r.email = t.email WHERE t.token_hash = ?1",
            params![token_hash],
            token_record,
        )
    }

    fn set_max_api_keys(&self, email: &str, max: Option<u32>) -> Result<bool> {
        let n = self.changed(
            "UPDATE access_grant SET max_api_keys = ?2 WHERE email = ?1",
            params![email, max],
        )?;
        Ok(n == 1)
    }

    fn insert_api_key(&self, k: &NewApiKey) -> Result<KeyInsert> {
        // One statement: SQLite runs it under the database's one write lock, so the count and the
        // insert cannot interleave with another creation.
        let id = self.optional_row(
            "INSERT INTO api_key (key_hash, email, name, created_at, expires_at)
             SELECT ?1, g.email, ?3, ?4, ?5 FROM access_grant g WHERE g.email = ?2
               AND (SELECT COUNT(*) FROM api_key k WHERE k.email = g.email
                      AND (k.expires_at IS NULL OR k.expires_at > ?4)) < COALESCE(g.max_api_keys, ?6)
             RETURNING id",
            params![
                k.key_hash.expose(),
                k.email,
                k.name,
                k.created_at,
                k.expires_at,
                DEFAULT_MAX_API_KEYS
            ],
            |r| r.get(0),
        )?;
        if let Some(id) = id {
            return Ok(KeyInsert::Created(id));
        }
        self.optional_row(
            "SELECT COALESCE(max_api_keys, ?2) FROM access_grant WHERE email = ?1",
            params![k.email, DEFAULT_MAX_API_KEYS],
            |r| r.get(0),
        )?
        .map(KeyInsert::AtLimit)
        .ok_or_else(|| gridprint_store::StoreError::Other(format!("{} has no grant", k.email)))
    }

    fn list_api_keys(
        &self,
        email: Option<&str>,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<ApiKeyRow>> {
        query_rows(
            &self.lock(),
            "SELECT id, email, name, created_at, expires_at, last_used_at FROM api_key
             WHERE (?1 IS NULL OR email = ?1) AND id > ?2 ORDER BY id LIMIT ?3",
            params![email, after_id, limit],
            |r| {
                Ok(ApiKeyRow {
                    id: r.get(0)?,
                    email: r.get(1)?,
                    name: r.get(2)?,
                    created_at: r.get(3)?,
                    expires_at: r.get(4)?,
                    last_used_at: r.get(5)?,
                })
            },
        )
    }

    fn revoke_api_key(&self, id: i64, email: Option<&str>) -> Result<bool> {
        let n = self.changed(
            "DELETE FROM api_key WHERE id = ?1 AND (?2 IS NULL OR email = ?2)",
            params![id, email],
        )?;
        Ok(n == 1)
    }

    fn find_api_key(&self, key_hash: &str) -> Result<Option<TokenRecord>> {
        self.optional_row(
            "SELECT k.key_hash, k.email, k.created_at, COALESCE(k.expires_at, ?2) FROM api_key k
             JOIN access_grant g ON g.email = k.email WHERE k.key_hash = ?1",
            params![key_hash, NEVER_EXPIRES],
            token_record,
        )
    }

    fn touch_api_key(&self, key_hash: &str, now: i64) -> Result<()> {
        self.changed(
            "UPDATE api_key SET last_used_at = ?2 WHERE key_hash = ?1",
            params![key_hash, now],
        )
        .map(|_| ())
    }
}

impl SqliteStore {
    /// The one row `sql` answers with `params`, read by `read`; `None` when it answers none.
    fn optional_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        read: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>> {
        let conn = self.lock();
        conn.query_row(sql, params, read)
            .optional()
            .map_err(map_err)
    }

    /// How many rows `sql` with `params` changed.
    fn changed(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.lock().execute(sql, params).map_err(map_err)
    }

    /// Deletes the rows of `email` from `tables`, in order, in one transaction; whether the last
    /// table held one.
    fn delete_rows(&self, email: &str, tables: &[&str]) -> Result<bool> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        let mut last = 0;
        for table in tables {
            let sql = format!("DELETE FROM {table} WHERE email = ?1");
            last = tx.execute(&sql, params![email]).map_err(map_err)?;
        }
        tx.commit().map_err(map_err)?;
        Ok(last == 1)
    }
}

/// A [`TokenRecord`] from a row of `hash, email, issued_at, expires_at` (tokens and API keys).
fn token_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<TokenRecord> {
    Ok(TokenRecord {
        token_hash: Secret::new(r.get(0)?),
        email: r.get(1)?,
        issued_at: r.get(2)?,
        expires_at: r.get(3)?,
    })
}
