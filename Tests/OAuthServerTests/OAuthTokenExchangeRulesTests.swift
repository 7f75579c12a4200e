import Directory
import JSON
import JWT
import OAuthGrants
import OAuthServer
import Testing

@Suite("Token exchange rules (RFC 8693): narrowing, act nesting and depth, expiry clamp, may_act")
struct OAuthTokenExchangeRulesTests {
    static let now: Int64 = 1_700_000_000
    static let mcp = "https://mail.example/mcp"
    static let limits = OAuthTokenExchangeRules.Limits(maximumDepth: 3, accessTokenLifetime: 900)

    static func subject(
        _ permissions: MailPermissions = .all, resource: String? = mcp, expiresAt: Int64 = now + 600,
        act: [String] = [], mayAct: OAuthTokenExchangeRules.MayAct? = nil, inboxes: [String]? = nil
    ) -> OAuthTokenExchangeRules.Subject {
        .init(
            ownerID: "owner-1", permissions: permissions, resource: resource, expiresAt: expiresAt,
            act: OAuthActorChain(act), mayAct: mayAct, inboxIDs: inboxes)
    }

    static func request(
        _ actor: String = "agent-a", allowed: Bool = true, scope: MailPermissions? = nil, audiences: [String] = [],
        actorPermissions: MailPermissions = .all, actorInboxes: [String] = ["inbox-1", "inbox-2"]
    ) -> OAuthTokenExchangeRules.Request {
        .init(
            actorClientID: actor, actorAllowed: allowed, permissions: scope, audiences: audiences,
            actorPermissions: actorPermissions, actorInboxIDs: actorInboxes)
    }

    static func decide(
        _ subject: OAuthTokenExchangeRules.Subject, _ request: OAuthTokenExchangeRules.Request,
        limits: OAuthTokenExchangeRules.Limits = limits, now: Int64 = now
    ) throws(OAuthTokenExchangeRules.Refusal) -> OAuthTokenExchangeRules.Decision {
        try OAuthTokenExchangeRules.decide(subject, request, limits: limits, issuer: "https://mail.example", now: now)
    }

    @Test("an agent acting for the owner: the subject's scope and audience, act {sub: agent}, exp clamped to the subject's")
    func firstExchange() throws {
        let decision = try Self.decide(Self.subject(), Self.request())
        #expect(decision.permissions == .all)
        #expect(decision.resource == Self.mcp)
        #expect(decision.act.clientIDs == ["agent-a"])
        #expect(decision.expiresAt == Self.now + 600)
        #expect(decision.act.claim.serialize() == Array(#"{"sub":"agent-a"}"#.utf8))
    }

    @Test("expiry: the access token lifetime when the subject lives longer, never past the subject")
    func expiryClamp() throws {
        #expect(try Self.decide(Self.subject(expiresAt: Self.now + 5_000), Self.request()).expiresAt == Self.now + 900)
        #expect(try Self.decide(Self.subject(expiresAt: Self.now + 1), Self.request()).expiresAt == Self.now + 1)
        #expect(throws: OAuthTokenExchangeRules.Refusal.subjectExpired) {
            try Self.decide(Self.subject(expiresAt: Self.now), Self.request())
        }
        #expect(throws: OAuthTokenExchangeRules.Refusal.subjectExpired) {
            try Self.decide(Self.subject(expiresAt: Self.now + 600), Self.request(), now: Self.now + 601)
        }
    }

    @Test("scope only narrows: a subset is kept, a wider or empty one is refused")
    func scopeNarrowing() throws {
        #expect(try Self.decide(Self.subject(.all), Self.request(scope: .read)).permissions == .read)
        #expect(try Self.decide(Self.subject(.read), Self.request(scope: .read)).permissions == .read)
        #expect(try Self.decide(Self.subject(.read), Self.request()).permissions == .read)
        for (held, asked) in [(MailPermissions.read, MailPermissions.all), (.read, .send), (.send, .read)] {
            #expect(throws: OAuthTokenExchangeRules.Refusal.widerScope) {
                try Self.decide(Self.subject(held), Self.request(scope: asked))
            }
        }
        #expect(throws: OAuthTokenExchangeRules.Refusal.widerScope) {
            try Self.decide(Self.subject(.all), Self.request(scope: MailPermissions()))
        }
    }

    @Test("inboxes and scope narrow to what the acting client was bound to: the intersection, never wider")
    func actorBounds() throws {
        typealias Refusal = OAuthTokenExchangeRules.Refusal
        // Inboxes: those of the subject's the client was bound to (any case), the client's when the subject names none.
        #expect(try Self.decide(Self.subject(inboxes: ["inbox-3", "inbox-1"]), Self.request()).inboxIDs == ["inbox-1"])
        #expect(try Self.decide(Self.subject(), Self.request(actorInboxes: ["INBOX-2"])).inboxIDs == ["inbox-2"])
        #expect(throws: Refusal.outsideActorInboxes) { try Self.decide(Self.subject(inboxes: ["inbox-3"]), Self.request()) }
        #expect(throws: Refusal.outsideActorInboxes) { try Self.decide(Self.subject(inboxes: []), Self.request()) }
        #expect(throws: Refusal.outsideActorInboxes) { try Self.decide(Self.subject(), Self.request(actorInboxes: [])) }
        // An inbox audience reaches its one inbox, only when the client was bound to it.
        let inboxAudience = OAuthAccessClaims.inboxResourcePrefix + "inbox-2"
        #expect(try Self.decide(Self.subject(resource: inboxAudience), Self.request()).inboxIDs == ["inbox-2"])
        #expect(throws: Refusal.outsideActorInboxes) {
            try Self.decide(Self.subject(resource: inboxAudience), Self.request(actorInboxes: ["inbox-1"]))
        }
        // Scope: the subject's within the client's; asking past the client's is refused, as is sharing none.
        #expect(try Self.decide(Self.subject(.all), Self.request(actorPermissions: .read)).permissions == .read)
        #expect(try Self.decide(Self.subject(.read), Self.request(actorPermissions: .all)).permissions == .read)
        for scope in [MailPermissions.send, .all] {
            #expect(throws: Refusal.widerScope) {
                try Self.decide(Self.subject(.all), Self.request(scope: scope, actorPermissions: .read))
            }
        }
        #expect(throws: Refusal.widerScope) { try Self.decide(Self.subject(.send), Self.request(actorPermissions: .read)) }
        // A sub-agent narrows what its parent reached, never widens it.
        let first = try Self.decide(Self.subject(), Self.request("agent-a", actorInboxes: ["inbox-1", "inbox-2"]))
        let second = try Self.decide(
            Self.subject(first.permissions, act: ["agent-a"], inboxes: first.inboxIDs),
            Self.request("agent-b", actorInboxes: ["inbox-2", "inbox-9"]))
        #expect(second.inboxIDs == ["inbox-2"] && second.act.clientIDs == ["agent-b", "agent-a"])
    }

    @Test("audience only narrows: the subject's, or one named when the subject names none; never another or two")
    func audienceNarrowing() throws {
        #expect(try Self.decide(Self.subject(), Self.request(audiences: [Self.mcp])).resource == Self.mcp)
        #expect(try Self.decide(Self.subject(), Self.request(audiences: [Self.mcp, Self.mcp])).resource == Self.mcp)
        #expect(try Self.decide(Self.subject(resource: nil), Self.request(audiences: [Self.mcp])).resource == Self.mcp)
        for audiences in [
            ["https://mail.example/jmap"], [Self.mcp + "/"], ["https://evil.example/mcp"],
            [Self.mcp, "https://mail.example/jmap"],
        ] {
            #expect(throws: OAuthTokenExchangeRules.Refusal.otherAudience, "\(audiences)") {
                try Self.decide(Self.subject(), Self.request(audiences: audiences))
            }
        }
        #expect(throws: OAuthTokenExchangeRules.Refusal.noAudience) {
            try Self.decide(Self.subject(resource: nil), Self.request())
        }
    }

    @Test("act nests the subject's actors under the new one, up to the depth limit")
    func actNestingAndDepth() throws {
        let second = try Self.decide(Self.subject(act: ["agent-a"]), Self.request("agent-b"))
        #expect(second.act.clientIDs == ["agent-b", "agent-a"])
        #expect(second.act.claim.serialize() == Array(#"{"sub":"agent-b","act":{"sub":"agent-a"}}"#.utf8))
        let third = try Self.decide(Self.subject(act: ["agent-b", "agent-a"]), Self.request("agent-c"))
        #expect(third.act.depth == 3)
        #expect(throws: OAuthTokenExchangeRules.Refusal.tooDeep) {
            try Self.decide(Self.subject(act: ["agent-c", "agent-b", "agent-a"]), Self.request("agent-d"))
        }
        let shallow = OAuthTokenExchangeRules.Limits(maximumDepth: 1, accessTokenLifetime: 900)
        #expect(throws: OAuthTokenExchangeRules.Refusal.tooDeep) {
            try Self.decide(Self.subject(act: ["agent-a"]), Self.request("agent-b"), limits: shallow)
        }
    }

    @Test("may_act: only the party it names acts, and only of this issuer when it names one")
    func mayAct() throws {
        let named = OAuthTokenExchangeRules.MayAct(subject: "agent-a")
        #expect(try Self.decide(Self.subject(mayAct: named), Self.request("agent-a")).act.current == "agent-a")
        let here = OAuthTokenExchangeRules.MayAct(subject: "agent-a", issuer: "https://mail.example")
        #expect(try Self.decide(Self.subject(mayAct: here), Self.request("agent-a")).act.current == "agent-a")
        let cases: [OAuthTokenExchangeRules.MayAct] = [
            .init(subject: "agent-b"), .init(subject: "agent-a", issuer: "https://other.example"),
            .init(subject: "AGENT-A"),
        ]
        for mayAct in cases {
            #expect(throws: OAuthTokenExchangeRules.Refusal.mayActRefuses, "\(mayAct)") {
                try Self.decide(Self.subject(mayAct: mayAct), Self.request("agent-a"))
            }
        }
    }

    @Test("an actor the owner did not allow is refused before anything else is looked at")
    func actorNotAllowed() throws {
        #expect(throws: OAuthTokenExchangeRules.Refusal.actorNotAllowed) {
            try Self.decide(Self.subject(act: ["x", "y", "z"]), Self.request(allowed: false, scope: .all))
        }
    }

    @Test("act claims read back to the chain they were written from; malformed ones are refused")
    func actorChainClaims() throws {
        let chain = try #require(OAuthActorChain(["c", "b", "a"]))
        #expect(OAuthActorChain(claim: chain.claim) == chain)
        #expect(OAuthActorChain(stored: chain.stored) == chain)
        #expect(chain.stored == "c b a")
        #expect(OAuthActorChain([]) == nil)
        #expect(OAuthActorChain(stored: "") == nil)
        let parsed = try JSONValue.parse(Array(#"{"sub":"x","iss":"https://i","act":{"sub":"y"}}"#.utf8))
        #expect(OAuthActorChain(claim: parsed)?.clientIDs == ["x", "y"])
        for text in [#""x""#, #"{"act":{"sub":"y"}}"#, #"{"sub":1}"#, #"{"sub":"x","act":"y"}"#, #"{"sub":""}"#] {
            #expect(OAuthActorChain(claim: try JSONValue.parse(Array(text.utf8))) == nil, "\(text)")
        }
        var deep: JSONValue = .object([("sub", .string("0"))])
        for i in 1...OAuthActorChain.maximumReadDepth { deep = .object([("sub", .string("\(i)")), ("act", deep)]) }
        #expect(OAuthActorChain(claim: deep) == nil)
    }

    @Test("an access token's act survives signing and verification, and a token without one has none")
    func accessClaimsCarryAct() throws {
        let chain = try #require(OAuthActorChain(["agent-b", "agent-a"]))
        let claims = OAuthAccessClaims(
            ownerID: "owner-1", clientID: "agent-b", resource: Self.mcp, permissions: .read, jti: "j1", act: chain)
        let signed = claims.claims(issuer: "https://mail.example", issuedAt: Self.now, ttl: 900)
        #expect(try OAuthAccessClaims(verified: signed) == claims)
        var plain = signed
        plain["act"] = nil
        #expect(try OAuthAccessClaims(verified: plain).act == nil)
        plain["act"] = .string("agent-b")
        #expect(throws: JWTError.self) { try OAuthAccessClaims(verified: plain) }
    }

    @Test("a grant record matches a delegated token only with the same actors")
    func recordMatchesAct() throws {
        let chain = try #require(OAuthActorChain(["agent-a"]))
        let record = OAuthGrantRecord(
            grantID: "g", ownerID: "owner-1", clientID: "agent-a", agentID: nil, boundAccountID: nil,
            permissions: .all, resource: Self.mcp, grantExpiresAt: Self.now + 900, tokenExpiresAt: Self.now + 900,
            revoked: false, act: chain)
        let claims = OAuthAccessClaims(
            ownerID: "owner-1", clientID: "agent-a", resource: Self.mcp, permissions: .read, jti: "j", act: chain)
        #expect(record.matches(claims))
        let noAct = OAuthAccessClaims(
            ownerID: "owner-1", clientID: "agent-a", resource: Self.mcp, permissions: .read, jti: "j")
        #expect(!record.matches(noAct))
        let other = OAuthAccessClaims(
            ownerID: "owner-1", clientID: "agent-a", resource: Self.mcp, permissions: .read, jti: "j",
            act: OAuthActorChain(["agent-a", "agent-z"]))
        #expect(!record.matches(other))
    }
}
