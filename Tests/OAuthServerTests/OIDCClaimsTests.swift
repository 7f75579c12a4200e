import JSON
import JWT
import OAuthGrants
import Testing

@testable import OAuthServer

@Suite("OpenID Provider, pure parts: ID token claims, at_hash, the prompt and max_age table, the request")
struct OIDCClaimsTests {
    static let signIn = OIDCSignIn(
        clientID: "rp-1", ownerID: "0b7e1c1e-0000-4000-8000-000000000001", redirectURI: "https://rp.example/cb",
        codeChallenge: nil, nonce: "n-0S6_WzA2Mj", scopes: ["openid", "email", "profile"], authTime: 1_700_000_000,
        method: "hwk", sessionDigest: Array(repeating: 7, count: 32))

    // Vectors computed with Python's hashlib (an implementation independent of OpenSSL's use here): base64url of the
    // left half of SHA-256 (RS256) and SHA-512 (EdDSA) of the token's bytes.
    @Test("at_hash is the left half of the algorithm's hash, base64url", arguments: [
        (OIDCRelyingParty.SigningAlgorithm.rs256, "N_XG7JeP9tQFxnNNJOM4Vw"),
        (.edDSA, "HcI_4pTIoxKYPigWIQDb7Zw2RvHwJ6wcgi6WD4RB7nk"),
    ])
    func atHash(algorithm: OIDCRelyingParty.SigningAlgorithm, expected: String) {
        #expect(OIDCIDToken.halfHash("jHkWEdUXMU1BwAsC4vtUsZwnNTTjBSrbnQ8Cb3Ue", algorithm: algorithm) == expected)
    }

    @Test("the ID token carries every claim, in order, with the scopes' claims")
    func claims() {
        let token = OIDCIDToken(
            issuer: "https://auth.example", signIn: Self.signIn, subject: Self.signIn.ownerID, email: "ann@example.com", emailVerified: true,
            issuedAt: 1_700_000_100, lifetime: 300, accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNTTjBSrbnQ8Cb3Ue",
            algorithm: .rs256, sessionID: "sid-1")
        let json = String(decoding: token.claims.json.serialize(), as: UTF8.self)
        #expect(
            json == #"{"iss":"https://auth.example","sub":"0b7e1c1e-0000-4000-8000-000000000001","aud":"rp-1","#
                + #""azp":"rp-1","exp":1700000400,"iat":1700000100,"auth_time":1700000000,"nonce":"n-0S6_WzA2Mj","#
                + #""at_hash":"N_XG7JeP9tQFxnNNJOM4Vw","amr":["hwk"],"acr":"phr","sid":"sid-1","#
                + #""email":"ann@example.com","email_verified":true,"preferred_username":"ann@example.com"}"#)
    }

    @Test("openid alone releases no email; a password sign-in is acr 1; no nonce, no nonce claim")
    func narrow() {
        let claims = Self.openIDOnly(method: "pwd")
        #expect(claims["email"] == nil)
        #expect(claims["nonce"] == nil)
        #expect(claims["at_hash"] == nil)
        #expect(claims["acr"]?.stringValue == "1")
        #expect(claims["amr"] == .array([.string("pwd")]))
    }

    @Test("amr is the session's methods with mfa for two or more; acr phr with a passkey, 2 for two others, else 1",
        arguments: [
            ("pwd", ["pwd"], "1"), ("fed", ["fed"], "1"), ("hwk", ["hwk"], "phr"),
            ("pwd otp mfa", ["pwd", "otp", "mfa"], "2"), ("otp fed mfa", ["otp", "fed", "mfa"], "2"),
            ("hwk otp mfa", ["hwk", "otp", "mfa"], "phr"),
        ])
    func methods(stored: String, amr: [String], acr: String) {
        let claims = Self.openIDOnly(method: stored)
        #expect(claims["amr"] == .array(amr.map(JSONValue.string)))
        #expect(claims["acr"]?.stringValue == acr)
    }

    /// The claims of an ID token for a sign-in with the `openid` scope alone, no nonce, no access token, whose session
    /// stored `method`.
    static func openIDOnly(method: String) -> JWTClaims {
        let signIn = OIDCSignIn(
            clientID: "rp-1", ownerID: "o", redirectURI: "https://rp.example/cb", codeChallenge: nil, nonce: nil,
            scopes: ["openid"], authTime: 10, method: method, sessionDigest: Array(repeating: 1, count: 32))
        return OIDCIDToken(
            issuer: "https://auth.example", signIn: signIn, subject: signIn.ownerID, email: "ann@example.com", emailVerified: false,
            issuedAt: 20, lifetime: 300, accessToken: nil, algorithm: .rs256, sessionID: "s"
        ).claims
    }

    typealias Row = (prompts: Set<String>, maxAge: Int64?, session: Int64?, hint: String?, consented: Bool,
        firstParty: Bool, expected: OIDCPrompt.Decision)

    // The clock stands at 1,000; a session signed in at `session`.
    static let table: [Row] = [
        ([], nil, nil, nil, false, false, .signIn(again: false)),
        (["none"], nil, nil, nil, true, true, .error("login_required")),
        (["none"], nil, 900, nil, true, false, .issue),
        (["none"], nil, 900, nil, false, false, .error("consent_required")),
        (["none"], nil, 900, nil, false, true, .issue),
        (["login"], nil, 999, nil, true, true, .signIn(again: true)),
        ([], 60, 900, nil, true, false, .signIn(again: true)),
        (["none"], 60, 900, nil, true, false, .error("login_required")),
        ([], 100, 900, nil, true, false, .issue),
        ([], 0, 1_000, nil, true, false, .issue),
        ([], nil, 900, "ann@example.com", true, false, .issue),
        ([], nil, 900, "bob@example.com", true, false, .signIn(again: true)),
        (["none"], nil, 900, "Bob@example.com", true, false, .error("login_required")),
        (["consent"], nil, 900, nil, true, true, .consent),
        ([], nil, 900, nil, false, false, .consent),
    ]

    @Test("prompt, max_age and login_hint decide as OpenID Connect Core 3.1.2.1 says", arguments: table.indices)
    func prompt(row: Int) {
        let (prompts, maxAge, authTime, hint, consented, firstParty, expected) = Self.table[row]
        var request = OIDCPrompt.Request()
        request.prompts = prompts
        request.maxAge = maxAge
        request.loginHint = hint
        let session = authTime.map { OIDCPrompt.Session(authTime: $0, email: "ann@example.com") }
        #expect(
            OIDCPrompt.decide(request, session: session, consented: consented, firstParty: firstParty, now: 1_000)
                == expected)
    }

    @Test("a prompt=login sign-in comes back with login_since, which a session opened before it does not satisfy")
    func loginSince() {
        var request = OIDCPrompt.Request()
        request.loginSince = 950
        let old = OIDCPrompt.Session(authTime: 900, email: "a@b.c")
        let fresh = OIDCPrompt.Session(authTime: 950, email: "a@b.c")
        #expect(OIDCPrompt.decide(request, session: old, consented: true, firstParty: false, now: 1_000) == .signIn(again: true))
        #expect(OIDCPrompt.decide(request, session: fresh, consented: true, firstParty: false, now: 1_000) == .issue)
        let back = OAuthService.openIDSignIn(
            query: "client_id=rp&prompt=login&scope=openid", again: true, now: 950, hint: nil)
        #expect(back == "/owner/sign-in?next=%2Foauth%2Fauthorize%3Fclient_id%3Drp%26scope%3Dopenid%26login_since%3D950&again=login")
    }

    static let party = OIDCRelyingParty(clientID: "rp", name: "RP", redirectURIs: ["https://rp.example/cb"])
    static let challenge = String(repeating: "a", count: 43)

    static func request(_ extra: [(String, String)], party: OIDCRelyingParty = party) throws(
        OIDCAuthorizationRequest.Failure
    ) -> OIDCAuthorizationRequest {
        try OIDCAuthorizationRequest(
            items: [("client_id", "rp"), ("redirect_uri", "https://rp.example/cb"), ("response_type", "code")]
                + extra, party: party)
    }

    @Test("the request: openid required, other scopes ignored, PKCE required but for a legacy client")
    func request() throws {
        let pkce = [("code_challenge", Self.challenge), ("code_challenge_method", "S256")]
        let checked = try Self.request([("scope", "openid email offline_access"), ("nonce", "n")] + pkce)
        #expect(checked.scopes == ["openid", "email"])
        #expect(checked.state == nil)
        #expect(throws: OIDCAuthorizationRequest.Failure.self) { try Self.request([("scope", "openid")]) }
        let legacy = OIDCRelyingParty(
            clientID: "rp", name: "RP", redirectURIs: ["https://rp.example/cb"], legacyNoPKCE: true)
        #expect(try Self.request([("scope", "openid")], party: legacy).codeChallenge == nil)
    }

    @Test("before the redirect URI is known a page; after it, the error goes to the redirect URI")
    func failures() {
        #expect(throws: OIDCAuthorizationRequest.Failure.page(
            "The app asked to send you back to an address it did not register (redirect_uri).")) {
            try OIDCAuthorizationRequest(
                items: [("client_id", "rp"), ("redirect_uri", "https://evil.example/cb"), ("scope", "openid")],
                party: Self.party)
        }
        #expect(throws: OIDCAuthorizationRequest.Failure.redirect(
            OAuthError("invalid_scope", "scope must include openid."), redirectURI: "https://rp.example/cb",
            state: "s1")) {
            try Self.request([("scope", "email"), ("state", "s1")])
        }
        #expect(throws: OIDCAuthorizationRequest.Failure.self) {
            try Self.request([("scope", "openid"), ("prompt", "none login")])
        }
    }

    @Test("the claims parameter adds email and name to the ID token with openid alone, and its consent asks for them")
    func claimsParameter() throws {
        let pkce = [("code_challenge", Self.challenge), ("code_challenge_method", "S256")]
        let checked = try Self.request(
            [("scope", "openid"), ("claims", #"{"id_token":{"email":{"essential":true},"name":null},"userinfo":{"email_verified":null}}"#)]
                + pkce)
        #expect(checked.scopes == ["openid"])
        #expect(checked.consentScopes == ["openid", "email", "profile"])
        let signIn = OIDCSignIn(
            clientID: "rp", ownerID: "o", redirectURI: "https://rp.example/cb", codeChallenge: nil, nonce: nil,
            scopes: checked.scopes, authTime: 10, method: "pwd", sessionDigest: Array(repeating: 1, count: 32),
            claims: checked.claims)
        let claims = OIDCIDToken(
            issuer: "https://auth.example", signIn: signIn, subject: signIn.ownerID, email: "ann@example.com", emailVerified: false,
            issuedAt: 20, lifetime: 300, accessToken: nil, algorithm: .rs256, sessionID: "s"
        ).claims
        #expect(claims["email"]?.stringValue == "ann@example.com")
        #expect(claims["name"]?.stringValue == "ann@example.com")
        #expect(claims["email_verified"] == nil)
        let userinfo = OIDCIDToken.ownerClaims(
            .userinfo, scopes: ["openid", "email"], claims: checked.claims, email: "ann@example.com",
            emailVerified: true)
        #expect(userinfo.map(\.0) == ["email", "email_verified"])
        #expect(throws: OIDCAuthorizationRequest.Failure.redirect(
            OAuthError("invalid_request", "claims.userinfo must be an object."), redirectURI: "https://rp.example/cb",
            state: nil)) {
            try Self.request([("scope", "openid"), ("claims", #"{"userinfo":1}"#)] + pkce)
        }
    }

    // Vectors computed with Python's hmac and hashlib: base64url of HMAC-SHA256(key = bytes 0 to 31,
    // sector || 0x00 || owner id).
    @Test("a pairwise subject is the keyed digest of the sector and the owner's id; public is the owner's id",
        arguments: [
            ("wiki.example.com", "fFOtYNxagQPENqr8YP6eIhToDjZgYsmnK5IF5XMx2_E"),
            ("grafana.example.com", "6ZhDtt21PW1xV3EbS40YA0bCuRMbSboNY6ig3iu005o"),
        ])
    func pairwise(sector: String, expected: String) {
        let key = [UInt8](0..<32)
        let owner = "0b7e1c1e-0000-4000-8000-000000000001"
        #expect(OIDCSubject.pairwise(sector: sector, ownerID: owner, key: key) == expected)
        let party = OIDCRelyingParty(
            clientID: "rp", name: "RP", redirectURIs: ["https://\(sector)/cb"], subjectType: .pairwise(sector: sector))
        #expect(OIDCSubject.subject(ownerID: owner, party: party, key: key) == expected)
        #expect(OIDCSubject.subject(ownerID: owner, party: Self.party, key: key) == owner)
        // Another key (another server) or another owner is another subject.
        #expect(OIDCSubject.pairwise(sector: sector, ownerID: owner, key: [UInt8](1...32)) != expected)
        #expect(OIDCSubject.pairwise(sector: sector, ownerID: owner + "2", key: key) != expected)
    }

    @Test(
        """
        a sector_identifier_uri's host is the sector of redirect URIs on several hosts (known answer), when its \
        document lists every one of them
        """)
    func sectorIdentifier() throws {
        let uris = ["https://a.example/cb", "https://b.example/cb"]
        let document = Array(#"["https://b.example/cb", "https://a.example/cb", "https://c.example/cb"]"#.utf8)
        let type = try OIDCSectorIdentifier.subjectType(
            uri: "https://Wiki.Example.com/sector.json", document: document, redirectURIs: uris)
        #expect(type == .pairwise(sector: "wiki.example.com"))
        // The same subject as a party whose redirect URIs are all on wiki.example.com (the known answer above).
        let party = OIDCRelyingParty(clientID: "rp", name: "RP", redirectURIs: uris, subjectType: type)
        #expect(
            OIDCSubject.subject(ownerID: "0b7e1c1e-0000-4000-8000-000000000001", party: party, key: [UInt8](0..<32))
                == "fFOtYNxagQPENqr8YP6eIhToDjZgYsmnK5IF5XMx2_E")
        let refusals: [(String, String, OIDCSectorIdentifier.Failure)] = [
            ("https://wiki.example.com/s", #"["https://a.example/cb"]"#, .unlisted("https://b.example/cb")),
            ("https://wiki.example.com/s", #"["https://a.example/cb", "https://B.example/cb"]"#,
             .unlisted("https://b.example/cb")),
            ("https://wiki.example.com/s", #"{"redirect_uris": []}"#, .notAList),
            ("https://wiki.example.com/s", #"["https://a.example/cb", 1]"#, .notAList),
            ("https://wiki.example.com/s", "not json", .notAList),
            ("wiki.example.com/s", #"["https://a.example/cb", "https://b.example/cb"]"#, .noHost),
        ]
        for (uri, document, failure) in refusals {
            #expect(throws: failure) {
                try OIDCSectorIdentifier.subjectType(uri: uri, document: Array(document.utf8), redirectURIs: uris)
            }
        }
    }

    @Test("the sector of pairwise subjects is the one host of the redirect URIs", arguments: [
        (["https://Wiki.Example.com/cb", "https://wiki.example.com:8443/other?x=1"], "wiki.example.com"),
        (["http://user@127.0.0.1:8080/cb"], "127.0.0.1"),
        (["https://[::1]:9/cb"], "[::1]"),
        (["https://a.example/cb", "https://b.example/cb"], nil),
        (["not a uri"], nil),
        ([], nil),
    ] as [([String], String?)])
    func sector(uris: [String], expected: String?) {
        #expect(OIDCRelyingParty.SubjectType.pairwise(redirectURIs: uris) == expected.map { .pairwise(sector: $0) })
    }
}
