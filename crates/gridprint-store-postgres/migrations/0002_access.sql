-- Access control: operator grants, registrations (Argon2id PHC strings), tokens (SHA-256 hex only).
CREATE TABLE access_grant (
    email       TEXT PRIMARY KEY,
    granted_at  BIGINT NOT NULL
);

CREATE TABLE registration (
    email          TEXT PRIMARY KEY REFERENCES access_grant(email) ON DELETE CASCADE,
    password_hash  TEXT NOT NULL,
    registered_at  BIGINT NOT NULL
);

CREATE TABLE token (
    token_hash  TEXT PRIMARY KEY,
    email       TEXT   NOT NULL REFERENCES access_grant(email) ON DELETE CASCADE,
    issued_at   BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX token_email ON token (email);
