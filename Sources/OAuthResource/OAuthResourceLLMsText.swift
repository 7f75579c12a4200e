/// The section of `/llms.txt` on the resource side of OAuth: how an app uses an owner's access token at JMAP, MCP
/// and `/api/v1/agents`, and what each refusal means.
public enum OAuthResourceLLMsText {
    /// The section's anchor (the GitHub-style slug of its heading), where the agent-shaped 400's `docs_url` points.
    public static let anchor = "using-an-oauth-access-token"

    /// - Parameter base: the public base URL, no trailing slash.
    public static func render(baseURL base: String) -> String {
        """
        ## Using an OAuth access token

        A person who owns agent inboxes can let an app act on them through OAuth 2.1 (authorization code with PKCE \
        `S256`). The access token (RFC 9068 `at+jwt`, EdDSA, 900 s; verify it from \(base)/.well-known/jwks.json) is \
        bound to the `resource` it was asked for, byte for byte: `\(base)/jmap`, `\(base)/mcp`, or \
        `urn:atomicmail:agent:{accountId}` (that one inbox, over JMAP). Its `scope` is `mail.read`, `mail.send` or \
        both: `mail.read` covers every JMAP method that does not send; `mail.send` alone covers what composing and \
        sending needs (`Identity/get`, `Mailbox/get`, `Blob/upload`, `Email/set` creating a draft, \
        `EmailSubmission/set`) and no reading. Every request checks that the grant is still live: a revoked grant \
        fails at once, on every instance.

        List the owner's inboxes (tokens for `/jmap` or `/mcp` only); the answer is \
        `{"agents":[{"accountId","inboxId","address","status":"active","linkedAt","activatedAt"}],"_next":[...]}` \
        with times like `2026-07-01T09:14:22.000Z`:

        ```bash
        curl -s \(base)/api/v1/agents -H "Authorization: Bearer <access token>"
        ```

        JMAP takes the access token directly at `POST \(base)/jmap` (also `\(base)/jmap/api` and the session at \
        \(base)/.well-known/jmap), with the inbox named in `X-Atomic-Account-Id`; `accountId` may be left out of \
        method arguments and cannot name another inbox:

        ```bash
        curl -s -X POST \(base)/jmap -H "Authorization: Bearer <access token>" -H "X-Atomic-Account-Id: <accountId>" \\
          -H "Content-Type: application/json" \\
          -d '{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],"methodCalls":[["Email/query",{"limit":5},"q"]]}'
        ```

        MCP (`\(base)/mcp`) discovers the authorization server from \
        \(base)/.well-known/oauth-protected-resource/mcp; `agent_id` picks an inbox, else the one chosen at consent, \
        else the owner's only inbox; with several and no default a tool answers asking you to call `list_agents`.

        Refusals (`{"error","error_description"}` unless noted):

        - 400, the agent error shape `{"error":{"message","hint","docs_url"}}`: `X-Atomic-Account-Id` missing or \
        not a UUID.
        - 401 `invalid_token`, with `WWW-Authenticate: Bearer error="invalid_token"`: expired, forged, of another \
        issuer, for another resource (an `/mcp` token at JMAP too), or its grant revoked. Refresh or authorize again.
        - 403 `insufficient_scope`, with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`: the \
        grant lacks the scope a method or tool needs; nothing of the request ran. Authorize again asking for it.
        - 403 `access_denied`: the inbox is not the owner's, or the token is bound to another inbox.

        """
    }
}
