//! Access records on PostgreSQL: grants, registrations and token hashes (see `gridprint_store::access`).

use crate::{PgStore, map_err};
use gridprint_store::access::{DEFAULT_MAX_API_KEYS, NEVER_EXPIRES};
use gridprint_store::access::{RESET_TABLES, REVOKE_TABLES, registration_error};
use gridprint_store::{
    AccessStore, AccountLimit, ApiKeyRow, GrantRow, KeyInsert, NewApiKey, Result, Secret,
    TokenRecord,
};

type Params<'a> = [&'a (dyn postgres::types::ToSql + Sync)];

impl PgStore {
    /// The row `sql` selects with `params`, if any.
    fn row(&self, sql: &str, params: &Params<'_>) -> Result<Option<postgres::Row>> {
        self.conn()?.query_opt(sql, params).map_err(map_err)
    }

    /// How many rows `sql` with `params` changed.
    fn changed(&self, sql: &str, params: &Params<'_>) -> Result<u64> {
        self.conn()?.execute(sql, params).map_err(map_err)
    }
}

impl AccessStore for PgStore {
    fn grant(&self, email: &str, code_hash: Option<&str>, now: i64) -> Result<bool> {
        let n = self.changed(
            "INSERT INTO access_grant (email, granted_at, registration_code_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&email, &now, &code_hash],
        )?;
        Ok(n == 1)
    }

    fn set_registration_code(&self, email: &str, code_hash: Option<&str>) -> Result<bool> {
        let n = self.changed(
            "UPDATE access_grant SET registration_code_hash = $2
             WHERE email = $1 AND NOT EXISTS (SELECT 1 FROM registration r WHERE r.email = $1)",
            &[&email, &code_hash],
        )?;
        Ok(n == 1)
    }

    fn registration_code(&self, email: &str) -> Result<Option<Option<String>>> {
        Ok(self
            .row(
                "SELECT registration_code_hash FROM access_grant WHERE email = $1",
                &[&email],
            )?
            .map(|r| r.get(0)))
    }

    fn revoke(&self, email: &str) -> Result<bool> {
        self.delete_rows(email, REVOKE_TABLES)
    }

    fn reset(&self, email: &str) -> Result<bool> {
        self.delete_rows(email, RESET_TABLES)
    }

    fn list_grants(&self) -> Result<Vec<GrantRow>> {
        let rows = self.rows(
            "SELECT g.email, g.granted_at, r.email IS NOT NULL, (SELECT MAX(issued_at) FROM token t WHERE t.email = g.email),
                    g.rate_limit_per_second, g.rate_limit_burst, g.max_api_keys
             FROM access_grant g LEFT JOIN registration r ON r.email = g.email ORDER BY g.email",
            &[],
        )?;
        Ok(rows
            .iter()
            .map(|r| GrantRow {
                email: r.get(0),
                granted_at: r.get(1),
                registered: r.get(2),
                last_token_at: r.get(3),
                limit: AccountLimit::from_columns(r.get(4), r.get(5)),
                max_api_keys: r
                    .get::<_, Option<i64>>(6)
                    .map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
            })
            .collect())
    }

    fn has_grant(&self, email: &str) -> Result<bool> {
        Ok(self
            .row("SELECT 1 FROM access_grant WHERE email = $1", &[&email])?
            .is_some())
    }

    fn register(&self, email: &str, password_hash: &str, now: i64) -> Result<()> {
        let mut c = self.conn()?;
        c.execute(
            "INSERT INTO registration (email, password_hash, registered_at) VALUES ($1, $2, $3)",
            &[&email, &password_hash, &now],
        )
        .map(|_| ())
        .map_err(|e| registration_error(map_err(e)))
    }

    fn password_hash(&self, email: &str) -> Result<Option<String>> {
        Ok(self
            .row(
                "SELECT password_hash FROM registration WHERE email = $1",
                &[&email],
            )?
            .map(|r| r.get(0)))
    }

    fn insert_token(&self, t: &TokenRecord) -> Result<()> {
        self.changed(
            "INSERT INTO token (token_hash, email, issued_at, expires_at) VALUES ($1, $2, $3, $4)",
            &[t.token_hash.expose(), &t.email, &t.issued_at, &t.expires_at],
        )
        .map(|_| ())
    }

    fn set_limit(&self, email: &str, limit: Option<AccountLimit>) -> Result<bool> {
        let n = self
            .changed(
                "UPDATE access_grant SET rate_limit_per_second = $2, rate_limit_burst = $3 WHERE email = $1",
                &[
                    &email,
                    &limit.map(|l| l.rate_per_second),
                    &limit.map(|l| i64::from(l.burst)),
                ],
            )?;
        Ok(n == 1)
    }

    fn account_limit(&self, email: &str) -> Result<Option<AccountLimit>> {
        Ok(self
            .row(
                "SELECT rate_limit_per_second, rate_limit_burst FROM access_grant WHERE email = $1",
                &[&email],
            )?
            .and_then(|r| AccountLimit::from_columns(r.get(0), r.get(1))))
    }

    fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
        Ok(self
            .row(
                "SELECT t.token_hash, t.email, t.issued_at, t.expires_at FROM token t
                 JOIN registration r ON r.email = t.email WHERE t.token_hash = $1",
                &[&token_hash],
            )?
            .map(|r| TokenRecord {
                token_hash: Secret::new(r.get(0)),
                email: r.get(1),
                issued_at: r.get(2),
                expires_at: r.get(3),
            }))
    }

    fn set_max_api_keys(&self, email: &str, max: Option<u32>) -> Result<bool> {
        let n = self.changed(
            "UPDATE access_grant SET max_api_keys = $2 WHERE email = $1",
            &[&email, &max.map(i64::from)],
        )?;
        Ok(n == 1)
    }

    fn insert_api_key(&self, k: &NewApiKey) -> Result<KeyInsert> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        // The grant's row lock first: a concurrent creation for the same account waits here, and
        // the count below (a statement of its own) then sees its key.
        let Some(max) = tx
            .query_opt(
                "SELECT COALESCE(max_api_keys, $2) FROM access_grant WHERE email = $1 FOR UPDATE",
                &[&k.email, &i64::from(DEFAULT_MAX_API_KEYS)],
            )
            .map_err(map_err)?
            .map(|r| r.get::<_, i64>(0))
        else {
            return Err(gridprint_store::StoreError::Other(format!(
                "{} has no grant",
                k.email
            )));
        };
        let held: i64 = tx
            .query_one(
                "SELECT COUNT(*) FROM api_key WHERE email = $1 AND (expires_at IS NULL OR expires_at > $2)",
                &[&k.email, &k.created_at],
            )
            .map_err(map_err)?
            .get(0);
        if held >= max {
            return Ok(KeyInsert::AtLimit(u32::try_from(max).unwrap_or(u32::MAX)));
        }
        let id: i64 = tx
            .query_one(
                "INSERT INTO api_key (key_hash, email, name, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[
                    k.key_hash.expose(),
                    &k.email,
                    &k.name,
                    &k.created_at,
                    &k.expires_at,
                ],
            )
            .map_err(map_err)?
            .get(0);
        tx.commit().map_err(map_err)?;
        Ok(KeyInsert::Created(id))
    }

    fn list_api_keys(
        &self,
        email: Option<&str>,
        after_id: i64,
        limit: u32,
    ) -> Result<Vec<ApiKeyRow>> {
        let rows = self.rows(
            "SELECT id, email, name, created_at, expires_at, last_used_at FROM api_key
             WHERE ($1::TEXT IS NULL OR email = $1) AND id > $2 ORDER BY id LIMIT $3",
            &[&email, &after_id, &i64::from(limit)],
        )?;
        Ok(rows
            .iter()
            .map(|r| ApiKeyRow {
                id: r.get(0),
                email: r.get(1),
                name: r.get(2),
                created_at: r.get(3),
                expires_at: r.get(4),
                last_used_at: r.get(5),
            })
            .collect())
    }

    fn revoke_api_key(&self, id: i64, email: Option<&str>) -> Result<bool> {
        let n = self.changed(
            "DELETE FROM api_key WHERE id = $1 AND ($2::TEXT IS NULL OR email = $2)",
            &[&id, &email],
        )?;
        Ok(n == 1)
    }

    fn find_api_key(&self, key_hash: &str) -> Result<Option<TokenRecord>> {
        Ok(self
            .row(
                "SELECT k.key_hash, k.email, k.created_at, COALESCE(k.expires_at, $2) FROM api_key k
                 JOIN access_grant g ON g.email = k.email WHERE k.key_hash = $1",
                &[&key_hash, &NEVER_EXPIRES],
            )?
            .map(|r| TokenRecord {
                token_hash: Secret::new(r.get(0)),
                email: r.get(1),
                issued_at: r.get(2),
                expires_at: r.get(3),
            }))
    }

    fn touch_api_key(&self, key_hash: &str, now: i64) -> Result<()> {
        self.changed(
            "UPDATE api_key SET last_used_at = $2 WHERE key_hash = $1",
            &[&key_hash, &now],
        )
        .map(|_| ())
    }
}

impl PgStore {
    /// Deletes the rows of `email` from `tables`, in order, in one transaction; whether the last
    /// table held one.
    fn delete_rows(&self, email: &str, tables: &[&str]) -> Result<bool> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        let mut last = 0;
        for table in tables {
            let sql = format!("DELETE FROM {table} WHERE email = $1");
            last = tx.execute(sql.as_str(), &[&email]).map_err(map_err)?;
        }
        tx.commit().map_err(map_err)?;
        Ok(last == 1)
    }
}
