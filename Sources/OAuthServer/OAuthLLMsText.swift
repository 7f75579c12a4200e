/// The "OAuth for apps" section of `/llms.txt`: how a third-party app gets tokens for an owner's inboxes, with the
/// endpoints, the form contract a browser-less driver fills, the errors and the lifetimes of this instance.
public enum OAuthLLMsText {
    /// The section's anchor (the GitHub-style slug of its heading).
    public static let anchor = "oauth-for-apps"

    /// The section for the authorization server configured as `c`.
    public static func render(_ c: OAuthConfiguration) -> String {
        let base = c.issuer
        return """
            ## OAuth for apps

            An OAuth 2.1 authorization server (Atomic Mail compatible) lets a person who owns inboxes (an *owner*, who \
            signs in at `\(base)/owner/sign-in`) approve a third-party app. Metadata (RFC 8414): \
            `\(base)/.well-known/oauth-authorization-server`; issuer `\(base)`. Access tokens are RFC 9068 JWTs \
            (header `typ: at+jwt`, EdDSA with the Ed25519 key of `\(base)/.well-known/jwks.json`; claims `iss sub aud \
            client_id iat exp jti scope`, plus Postern's `pur: "oauth-access"`; `sub` is the owner's UUID).

            ```bash
            curl -s \(base)/.well-known/oauth-authorization-server
            curl -s -X POST \(base)/oauth/register -H 'Content-Type: application/json' \\
              -d '{"client_name":"My app","redirect_uris":["http://127.0.0.1:8765/callback"]}'
            curl -s -X POST \(base)/oauth/revoke -H 'Content-Type: application/x-www-form-urlencoded' \\
              -d 'client_id=<client id>&token=<token>'
            ```

            1. Register (RFC 7591, open, \(c.registrationsPerHour) an hour per address) as the second line does. \
            Redirect URIs are https, \
            or http on localhost or 127.0.0.1 (no IPv6 literal), compared by exact string equality. An omitted \
            `token_endpoint_auth_method` means `none` (a public client, PKCE only); `client_secret_post` gets a \
            `client_secret`, shown once. A registration with no grant after 24 h is deleted. Instead of registering, \
            a client may use the https URL of its client ID metadata document as `client_id` (when the metadata's \
            `client_id_metadata_document_supported` is true): a JSON object with that `client_id`, \
            `redirect_uris`, `client_name`, no secret, fetched without redirects and cached.
            2. Send the person's browser to `GET \(base)/oauth/authorize` with `response_type=code`, `client_id`, \
            `redirect_uri`, `scope` (`mail.read`, `mail.send` or both), `resource` (exactly `\(base)/jmap`, \
            `\(base)/mcp` or `urn:atomicmail:agent:{accountId}`), `state`, `code_challenge` and \
            `code_challenge_method=S256`, all required. Any error is a 400 page, never a redirect (only the \
            person's denial on the consent page comes back to the redirect URI). A redirect URI on `127.0.0.1` or \
            `[::1]` over http matches on any port.
            3. A person who is not signed in goes to the sign-in form (fields `email`, `password`, `csrf_token`, \
            `next`) and back. The consent form posts to `\(base)/oauth/consent` with `scope` checkboxes \
            (`mail.read`, `mail.send`: the person may narrow), `account_id` (one of the owner's inboxes) or \
            `new_inbox` (the username of an inbox to create), `reach` (`all`: every inbox the owner holds, \
            including later ones, with this one as default; `inbox`: only this inbox; not offered for an inbox \
            resource), `decision` (`approve` or `deny`), the hidden \
            `csrf_token` and the hidden signed `request` (good for \(c.consentLifetime / 60) minutes). Approval \
            redirects to `redirect_uri?code=…&state=…&iss=\(base)`; denial with `error=access_denied`.
            4. `POST \(base)/oauth/token` (form-encoded): `grant_type=authorization_code`, `code`, `redirect_uri`, \
            `client_id`, `code_verifier` (and `client_secret` for `client_secret_post`), optionally `resource`. The \
            code lives \(c.codeLifetime) s and works once: a second use revokes everything it issued. The answer: \
            `access_token` (\(c.accessTokenLifetime) s), `token_type: Bearer`, `expires_in`, `refresh_token`, \
            `scope`, with `Cache-Control: no-store`.
            5. Refresh with `grant_type=refresh_token`, `refresh_token`, `client_id`, optionally `resource` (must be \
            the grant's, else `invalid_target`) and a narrower `scope`. Every refresh returns a new refresh token \
            (\(c.refreshTokenLifetime / 86_400) days from each rotation, at most \(c.grantLifetime / 86_400) days \
            after consent). Of two refreshes racing with one token exactly one wins; the loser gets `invalid_grant` \
            and, within \(c.refreshRaceWindow) s, revokes nothing. A refresh answered 503 may have rotated anyway: \
            retry it with the same token after `Retry-After`; within \(c.refreshRetryWindow) s, while the token it \
            was rotated into was never used, that retry gets a new one. Any other superseded token presented later \
            revokes the whole grant.
            6. `POST \(base)/oauth/revoke` with `client_id` and `token` (refresh or access): revokes the grant; 200 \
            even for an unknown token.

            \(c.clientCredentials ? clientCredentials(c) : "")\(c.deviceAuthorization ? device(c) : "")\
            \(c.introspection ? introspection(base) : "")\
            \(c.tokenExchange ? tokenExchange(c) : "")\
            Errors are `{"error","error_description"}` with status 400 (`invalid_request`, `invalid_client`, \
            `invalid_grant`, `invalid_scope`, `invalid_target`, `unsupported_grant_type`, `unauthorized_client`, \
            `invalid_redirect_uri`, `invalid_client_metadata`), 429 with `Retry-After`, 503 when busy. The metadata, \
            token, register, revoke and JWKS endpoints send `Access-Control-Allow-Origin: *`.

            """
    }

    /// How an agent without a browser signs in for its owner: the device authorization grant (RFC 8628).
    static func device(_ c: OAuthConfiguration) -> String {
        let base = c.issuer
        let grant = "urn:ietf:params:oauth:grant-type:device_code"
        return """
        ### An agent without a browser signs in like this, for its owner (device flow)

        An agent in a sandbox or a CLI that acts for a person uses the device flow (RFC 8628): it shows a code, the \
        owner approves it from any browser, the agent polls for the tokens. Register a client for the device-code \
        grant (no redirect URIs needed), ask for a code, show it, poll:

        ```bash
        curl -s -X POST \(base)/oauth/register -H 'Content-Type: application/json' \\
          -d '{"client_name":"My CLI","grant_types":["\(grant)","refresh_token"]}'
        curl -s -d 'client_id=<client id>' -d scope=mail.read -d resource=\(base)/mcp \(base)/oauth/device_authorization
        # {"device_code":"…","user_code":"BCDF-GHJK","verification_uri":"\(base)/owner/device",
        #  "verification_uri_complete":"\(base)/owner/device?user_code=BCDF-GHJK","expires_in":\(c.deviceCodeLifetime),"interval":\(c.devicePollInterval)}
        curl -s -d grant_type=\(grant) -d 'device_code=<device code>' -d 'client_id=<client id>' \\
          \(base)/oauth/token
        ```

        Show the owner `verification_uri` and `user_code` (or `verification_uri_complete`); they sign in, enter the \
        code and answer the same consent page as the code flow. Poll no faster than `interval`: \
        `authorization_pending` means ask again, `slow_down` means wait 5 s longer from now on, `access_denied` and \
        `expired_token` (after \(c.deviceCodeLifetime) s) end it; once approved the answer is the code flow's tokens, \
        once (`invalid_grant` after). `postern agent login --device --url \(base)` does all of this.


        """
    }

    /// How an agent without a browser signs in: the client credentials grant of a client the operator made.
    static func clientCredentials(_ c: OAuthConfiguration) -> String {
        let base = c.issuer
        return """
        ### An agent without a browser signs in like this

        An agent with an identity of its own (no person to approve it) uses the client credentials grant \
        (MCP's `io.modelcontextprotocol/oauth-client-credentials` extension, which `/mcp`'s `initialize` lists). The \
        operator makes its client, bound to the inboxes and scopes it may reach (`postern oauth client create --name \
        bot --inbox <username>`, a secret shown once; or `--auth private_key_jwt --jwks FILE`). The token's `sub` is \
        the client; it reaches only those inboxes; there is no refresh token (ask again after `expires_in`).

        ```bash
        curl -s -u '<client_id>:<client_secret>' -d grant_type=client_credentials \\
          -d resource=\(base)/mcp -d scope=mail.read \(base)/oauth/token
        ```

        With `private_key_jwt` send `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` \
        and `client_assertion`: a JWT (RS256, ES256 or EdDSA, a `kid` of the registered keys) with `iss` and `sub` \
        the client id, `aud` `\(base)`, `exp` at most \(c.assertionMaxLifetime) s ahead and a `jti` used once. The `mcp` Python \
        SDK's `ClientCredentialsOAuthProvider` and `PrivateKeyJWTOAuthProvider` do all of this from `\(base)/mcp`.


        """
    }

    /// How an agent acting for its owner trades the owner's token for one that names it (RFC 8693).
    static func tokenExchange(_ c: OAuthConfiguration) -> String {
        let base = c.issuer
        return """
        ### An agent acting for its owner exchanges the owner's token

        An agent client the owner allowed on `\(base)/owner/actors` trades the owner's access token for its own \
        (token exchange, RFC 8693): its `sub` is the owner, `act` `{"sub":"<agent client_id>"}`, its scope and \
        audience the owner's token's or narrower, its expiry no later; it dies when the owner revokes the grant. A \
        sub-agent exchanges that token in turn (`act` nests, at most \(c.tokenExchangeMaxDepth) deep). Another \
        client is `unauthorized_client`; a wider scope `invalid_scope`; another audience `invalid_target`.

        ```bash
        curl -s -u '<agent client_id>:<secret>' -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\
          -d subject_token=<owner access token> \\
          -d subject_token_type=urn:ietf:params:oauth:token-type:access_token -d scope=mail.read \(base)/oauth/token
        ```


        """
    }

    /// How a resource server asks whether a token is live.
    static func introspection(_ base: String) -> String {
        """
        ### Introspection

        A resource server with a client made `--introspection` asks `POST \(base)/oauth/introspect` (RFC 7662, \
        `token=<token>`, HTTP Basic) whether a token is live: `{"active":true,"scope","client_id","sub","aud",\
        "exp","iat","token_type",...}`, or exactly `{"active":false}`.


        """
    }
}
