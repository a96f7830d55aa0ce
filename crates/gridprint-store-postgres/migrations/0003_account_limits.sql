-- Account tiers: an account's own request rate limit (NULL: the server's default), shared by all
-- its tokens. Set with `gridprint access grant EMAIL --rate-limit N --burst M` or `access set-limit`.
ALTER TABLE access_grant ADD COLUMN rate_limit_per_second DOUBLE PRECISION;
ALTER TABLE access_grant ADD COLUMN rate_limit_burst BIGINT;
