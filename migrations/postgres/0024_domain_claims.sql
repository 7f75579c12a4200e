-- Several pending claims on one domain, at most one verified (as migrations/sqlite/0024_domain_claims.sql, which
-- rebuilds the tables): the UNIQUE of 0014 and 0020 (PostgreSQL's default names for them) gives way to a partial
-- unique index over verified claims, and a holder has one claim per domain.
ALTER TABLE mailbox_pro_domains DROP CONSTRAINT mailbox_pro_domains_domain_key;
CREATE UNIQUE INDEX mailbox_pro_domains_verified ON mailbox_pro_domains (domain) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX mailbox_pro_domains_by_holder ON mailbox_pro_domains (domain, owner_id);

ALTER TABLE owner_domains DROP CONSTRAINT owner_domains_domain_key;
CREATE UNIQUE INDEX owner_domains_verified ON owner_domains (domain) WHERE verified_at IS NOT NULL;
CREATE UNIQUE INDEX owner_domains_by_holder ON owner_domains (domain, owner_id);
