/// The remote Argon2 registration section of `/llms.txt`: the "Bad Passwords" API as this instance runs it, with
/// curl lines that work against it. The app composes it with the other surfaces' sections.
public enum RemoteHashLLMsText {
    /// The section anchors (GitHub-style slugs of its headings).
    public static let anchors = ["remote-argon2-registration", "remote-hash-flow", "remote-hash-urls"]

    /// Renders the section for `configuration`.
    public static func render(_ configuration: RemoteHashConfiguration) -> String {
        let c = configuration
        let base = c.publicURL.hasSuffix("/") ? String(c.publicURL.dropLast()) : c.publicURL
        let allowed = c.allowedHosts.isEmpty ? "" : " (allowed here: \(c.allowedHosts.joined(separator: ", ")))"
        let policy =
            c.allowPrivate
            ? "This instance lets hash URLs reach private and loopback addresses (`POSTERN_OUTBOUND_ALLOW_PRIVATE`)."
            : "Hash URLs must reach public addresses: loopback, private, link-local and similar targets are refused "
                + "(`Password hash URL is not allowed.`) unless the operator sets "
                + "`POSTERN_OUTBOUND_ALLOW_PRIVATE=true` or lists the host in `POSTERN_OUTBOUND_ALLOWED_HOSTS`"
                + allowed + "."
        return """
            ## Remote Argon2 registration

            Register an email with a URL that serves an Argon2 hash of your password; every login fetches that URL \
            again and checks the password against the hash it serves now. Send `Accept: application/json` for JSON \
            answers (without it the pages are HTML forms). Errors are `{"error":"<message>"}` with status 422.

            ### Remote hash flow

            1. Serve an Argon2id hash (its text, as `argon2` tools print it: `$argon2id$v=19$m=...,t=...,p=...$salt$hash`) \
            at a URL. `GET \(base)/example.txt` shows one (of `test123`).
            2. `POST \(base)/register` with `email`, `password_hash_url` and `password` → 201 `{"email","password_hash_url"}`.
            3. `POST \(base)/login` with `email` and `password` → 200 `{"token","token_type":"Bearer","email"}` (an RS256 \
            JWT, valid \(c.tokenTTL) s, verifiable with \(base)/.well-known/jwks.json).
            4. `POST \(base)/validate` with `Authorization: Bearer <token>` → `{"valid":true,"payload":{...}}`.
            5. `DELETE \(base)/logout` with `Authorization: Bearer <token>` ends every token issued before.

            ```bash
            curl -s -X POST \(base)/register -H "Accept: application/json" -H "Content-Type: application/json" -d '{"email":"me@example.com","password_hash_url":"<hash URL>","password":"<password>"}'
            curl -s -X POST \(base)/login -H "Accept: application/json" -H "Content-Type: application/json" -d '{"email":"me@example.com","password":"<password>"}'
            curl -s -X POST \(base)/validate -H "Accept: application/json" -H "Authorization: Bearer <token>"
            curl -s -X DELETE \(base)/logout -H "Accept: application/json" -H "Authorization: Bearer <token>"
            ```

            ### Remote hash URLs

            Only `http` and `https`, at most 3 redirects, 2 s to connect, 5 s in all, 4 KiB of body. Argon2 parameters \
            above \(c.maxArgon2MemoryKiB) KiB of memory, \(c.maxArgon2Iterations) passes or parallelism \
            \(c.maxArgon2Parallelism) are refused before any hashing. \(policy)

            """
    }
}
