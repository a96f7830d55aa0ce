-- Registration bound to the grant: the SHA-256 (hex) of the one-time registration code that
-- `gridprint access grant` printed; `register` needs that code. NULL: a grant made with `--no-code`
-- (or before this migration), registered first come, first served as on the reference service.
ALTER TABLE access_grant ADD COLUMN registration_code_hash TEXT;
