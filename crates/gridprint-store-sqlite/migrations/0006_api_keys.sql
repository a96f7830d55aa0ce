-- API keys: long-lived credentials of an account (`gridprint access key create`), for tools configured
-- once. Only the SHA-256 of the key is stored (like tokens). Numbered 0006: 0005 is the registration
-- code of another change; the runner applies the files in the order MIGRATIONS lists them.
CREATE TABLE api_key (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    key_hash      TEXT    NOT NULL UNIQUE,
    email         TEXT    NOT NULL REFERENCES access_grant(email) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    last_used_at  INTEGER
);
CREATE INDEX api_key_email ON api_key (email);
