-- An account's own cap on active (unexpired) API keys (NULL: the server's default of 20). Set with
-- `gridprint access grant EMAIL --max-keys N` or `access set-limit EMAIL --max-keys N`.
ALTER TABLE access_grant ADD COLUMN max_api_keys INTEGER;
