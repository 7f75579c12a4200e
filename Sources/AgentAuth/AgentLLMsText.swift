/// The agent signup section of `/llms.txt` (CONTRACT.md 1.5): Markdown that lets an agent complete the flow with
/// no other document, generated from the live configuration. The app composes it with the other surfaces'
/// sections into one document.
///
/// Its third-level headings are the anchors that `docs_url` points at (see ``anchors``).
public enum AgentLLMsText {
    /// The section anchors of the document, as GitHub-style heading slugs.
    public static let anchors = [
        "auth-flow-reference", "challenge", "proof-of-work", "dynamic-difficulty", "session", "usernames",
        "api-keys", "capability", "tokens", "errors",
    ]

    /// Renders the section for `configuration`: a second-level heading, then third-level ones.
    public static func render(_ configuration: AgentAuthConfiguration) -> String {
        let base = configuration.publicURL
        let c = configuration
        let free = DifficultyPolicy.freeChallenges
        let policy =
            c.dynamicDifficulty
            ? """
            Dynamic difficulty is on. Each client address (for IPv6, each /64 network) may ask for \(free) challenges per \
            \(DifficultyPolicy.windowSeconds) s at the base difficulty; beyond that the difficulty rises by one bit \
            for each doubling: \(free + 1)–\(free * 2) challenges +1, \(free * 2 + 1)–\(free * 4) +2, \
            \(free * 4 + 1)–\(free * 8) +3, and so on, up to \(c.maxDifficulty) bits. Always read `difficulty` from \
            the challenge you received rather than assuming the base value.
            """
            : """
            Dynamic difficulty is off on this instance: every challenge has the base difficulty. Still read \
            `difficulty` from each challenge rather than assuming it.
            """
        return """
            ## Agent signup (Atomic Mail compatible)

            This server speaks the Atomic Mail agent authentication API. Base URL: \(base)

            An agent signs up once with a username and receives an API key, then logs in with that key whenever it \
            needs a session. Every step is a plain HTTP request; tokens travel in the `Authorization: Bearer` \
            response header.

            ### Auth flow reference

            1. `POST \(base)/api/v1/challenge` → challenge JWT in the response header `Authorization: Bearer <jwt>`.
            2. Solve the scrypt proof of work for that challenge (see [Proof of work](#proof-of-work)).
            3. `POST \(base)/api/v1/session` with the challenge JWT as bearer and the solution in a JSON body → session \
            JWT in the response `Authorization` header. Sign up with `username`, or log in with `apiKey`.
            4. `POST \(base)/api/v1/capability` with the session JWT as bearer → capability JWT (valid \
            \(c.capabilityTTL) s) in the response `Authorization` header. Refresh it before it expires.

            ```bash
            curl -i -X POST \(base)/api/v1/challenge
            curl -i -X POST \(base)/api/v1/session \\
              -H "Authorization: Bearer <challenge JWT>" \\
              -H "Content-Type: application/json" \\
              -d '{"powHex":"<128 hex>","nonce":"<nonce>","username":"myagent"}'
            curl -i -X POST \(base)/api/v1/session \\
              -H "Authorization: Bearer <challenge JWT>" \\
              -H "Content-Type: application/json" \\
              -d '{"powHex":"<128 hex>","nonce":"<nonce>","apiKey":"<api key>"}'
            curl -i -X POST \(base)/api/v1/capability -H "Authorization: Bearer <session JWT>"
            ```

            Each challenge is single use: solve a new one for every session request.

            ### Challenge

            `POST /api/v1/challenge` needs no body. Response 200, header `Authorization: Bearer <challenge JWT>`, body:

            ```json
            {"challenge":"<jti>","difficulty":\(c.baseDifficulty),"algorithm":"scrypt",\
            "scrypt":{"N":16384,"r":8,"p":1,"dkLen":64},"salt":"\(c.powSalt)","expires_at":<unix seconds>,"_next":[...]}
            ```

            `challenge` equals the `jti` claim of the JWT and `difficulty` its `difficulty` claim. A challenge \
            expires \(c.challengeTTL) s after it was issued.

            ### Proof of work

            - Salt text: `\(c.powSalt)`
            - Use the UTF-8 bytes of the salt text as the scrypt salt, never its decoded hex bytes.
            - For nonce = 0, 1, 2, …: `digest = scrypt(password = UTF-8("<challenge>:<nonce>"), salt, N=16384, r=8, \
            p=1, dkLen=64)`.
            - The first nonce whose digest starts with at least `difficulty` zero bits (most significant bit first) \
            solves the challenge. Send `powHex` = lowercase hex of the 64-byte digest (128 characters) and `nonce` as \
            a decimal string (a JSON integer is accepted too).
            - Base difficulty on this instance: \(c.baseDifficulty) bits. Each try costs about 16 MiB of memory and \
            tens of milliseconds; the expected number of tries is 2^difficulty.

            ```python
            import hashlib
            def solve(challenge, salt_text, difficulty):
                nonce = 0
                while True:
                    d = hashlib.scrypt(f"{challenge}:{nonce}".encode(), salt=salt_text.encode(), n=16384, r=8, p=1, dklen=64)
                    if int.from_bytes(d, "big") >> (512 - difficulty) == 0:
                        return str(nonce), d.hex()
                    nonce += 1
            ```

            ### Dynamic difficulty

            \(policy)

            ### Session

            `POST /api/v1/session`, header `Authorization: Bearer <challenge JWT>`, JSON body with `powHex`, `nonce` \
            and exactly one of `username` (signup) or `apiKey` (login). Other fields are ignored. The server checks, \
            in this order: the challenge JWT (401), the body (400), the leading zero bits of `powHex` (400), that \
            the challenge is unused (401; it is consumed now), the scrypt recomputation (401), then the account.

            - Signup success: 201 `{"apiKey":"<shown once>","inbox":"<username>@\(c.inboxDomain)",\
            "username":"<username>","_next":[...]}`.
            - Login success: 200 `{"inbox":"<username>@\(c.inboxDomain)","_next":[...]}`.
            - Both: the session JWT (valid \(c.sessionTTL) s) in the response header `Authorization: Bearer <jwt>`.

            ### Usernames

            5 to 21 characters matching `^[a-z0-9][a-z0-9._-]{3,19}[a-z0-9]$`. Reserved and refused: \
            \(AgentUsername.reserved.sorted().joined(separator: ", ")). A taken username gets 409 \
            `Username already taken`. Your inbox is `<username>@\(c.inboxDomain)`.

            ### API keys

            The API key is returned once, at signup, and stored by this server only as a SHA-256 digest: keep it \
            secret and safe. It looks like `\(AgentAPIKey.prefix)` followed by 43 base64url characters (32 random \
            bytes). An unknown or revoked key gets 401 `Invalid API key`.

            ### Capability

            `POST /api/v1/capability` with header `Authorization: Bearer <session JWT>`. Response 200, the capability \
            JWT in the response header `Authorization: Bearer <jwt>`, body `{"expires_in":\(c.capabilityTTL),\
            "_next":[...]}`. An invalid, expired or wrong-purpose bearer, or a session of a deleted account, gets 401 \
            `Invalid or expired session`.

            ### Tokens

            | token | algorithm | lifetime | claims |
            | --- | --- | --- | --- |
            | challenge | HS256 | \(c.challengeTTL) s | `jti`, `difficulty`, `iat`, `exp`, `iss`, `pur:"challenge"` |
            | session | HS256 | \(c.sessionTTL) s | `sub` (account id), `inboxId`, `iat`, `exp`, `iss`, `jti`, `pur:"session"` |
            | capability | RS256 | \(c.capabilityTTL) s | `sub`, `inboxId`, `aud:"\(c.audience)"`, `scope:"jmap"`, \
            `iat`, `exp`, `iss`, `jti`, `pur:"capability"` |

            Issuer (`iss`): `\(c.issuer)`. Capability tokens verify with the public keys at \
            \(base)/.well-known/jwks.json (by `kid`). A token of one purpose is never accepted where another is \
            expected.

            ### Errors

            Every error on `/api/v1/*` has this shape:

            ```json
            {"error":{"message":"Invalid or expired challenge","hint":"Request a fresh challenge from POST \
            /api/v1/challenge, solve PoW again, and retry.","docs_url":"\(base)/llms.txt#auth-flow-reference"}}
            ```

            | status | message | what to do |
            | --- | --- | --- |
            \(AgentAuthError.catalogue.map { "| \($0.status) | \($0.message) | \($0.hint) |" }.joined(separator: "\n"))

            A 400 before the challenge is consumed leaves it usable: fix the request and retry with the same \
            challenge. After a 401 for the proof, or any error from the account step, request a fresh challenge.

            """
    }
}
