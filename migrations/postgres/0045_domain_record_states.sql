-- What the last check of a custom domain found, record by record (issue 51: every row of the domain pages keeps its
-- last state across a reload, not only the MX): a JSON object {"txt","mx","spf","dmarc":true|false|null,
-- "dkim":{"<selector>._domainkey.<domain>":true|false},"checked_at":<unix seconds>}, written by every verification.
-- NULL until the first check after this migration.
ALTER TABLE custom_domain_claims ADD COLUMN record_states TEXT;
