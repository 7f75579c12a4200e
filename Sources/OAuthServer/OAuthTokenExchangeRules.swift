import Directory
import OAuthGrants

/// What a token exchange (RFC 8693) may mint from a subject token, pure: the subject's owner, permissions, audience,
/// expiry and actors, the actor asking and what it asks for, the limits and the time are given; the answer is the
/// new token's permissions, audience, inboxes, actors and expiry, or the first rule broken. The new token never
/// reaches more than its subject, nor more than the asking client was bound to: its scope is within both the
/// subject's and the client's, its inboxes are those of the subject's the client was bound to, its audience is the
/// subject's, it expires no later, and its actors are the subject's with the asking client on top.
public enum OAuthTokenExchangeRules {
    /// What the subject token is.
    public struct Subject: Sendable, Equatable {
        /// The owner it is for (`sub`).
        public var ownerID: String
        /// Its permissions: the most the new token may carry.
        public var permissions: MailPermissions
        /// Its audience; nil when it names none (an identity assertion without `resource`): the request names one.
        public var resource: String?
        /// Its `exp`, Unix seconds.
        public var expiresAt: Int64
        /// Its actors (`act`), when it was exchanged already.
        public var act: OAuthActorChain?
        /// Its `may_act` (RFC 8693 section 4.4): who alone may act with it; nil when it says nothing.
        public var mayAct: MayAct?
        /// The inboxes (account ids, lowercase) it reaches at most: the one it is bound to, those an exchanged
        /// token was narrowed to; nil for every inbox the owner holds.
        public var inboxIDs: [String]?

        /// A subject as verified.
        public init(
            ownerID: String, permissions: MailPermissions, resource: String?, expiresAt: Int64,
            act: OAuthActorChain? = nil, mayAct: MayAct? = nil, inboxIDs: [String]? = nil
        ) {
            self.ownerID = ownerID
            self.permissions = permissions
            self.resource = resource
            self.expiresAt = expiresAt
            self.act = act
            self.mayAct = mayAct
            self.inboxIDs = inboxIDs
        }
    }

    /// A `may_act` claim: the party allowed to act, by `sub` and, when given, `iss`.
    public struct MayAct: Sendable, Equatable {
        /// `sub`: a client id of this server.
        public var subject: String
        /// `iss`, when given: it must be this server's issuer.
        public var issuer: String?

        /// A claim as read.
        public init(subject: String, issuer: String? = nil) {
            self.subject = subject
            self.issuer = issuer
        }
    }

    /// What the actor asks for.
    public struct Request: Sendable, Equatable {
        /// The authenticated client that will act.
        public var actorClientID: String
        /// Whether the subject's owner lets that client act for them (`/owner/actors`).
        public var actorAllowed: Bool
        /// The permissions asked for; nil for the subject's.
        public var permissions: MailPermissions?
        /// Every `resource` and `audience` value given (they must all name one audience); empty for the subject's.
        public var audiences: [String]
        /// The widest permissions the acting client was bound to.
        public var actorPermissions: MailPermissions
        /// The inboxes (account ids, lowercase) the acting client was bound to.
        public var actorInboxIDs: [String]

        /// A request as read, with the acting client's bounds.
        public init(
            actorClientID: String, actorAllowed: Bool, permissions: MailPermissions?, audiences: [String],
            actorPermissions: MailPermissions, actorInboxIDs: [String]
        ) {
            self.actorClientID = actorClientID
            self.actorAllowed = actorAllowed
            self.permissions = permissions
            self.audiences = audiences
            self.actorPermissions = actorPermissions
            self.actorInboxIDs = actorInboxIDs
        }
    }

    /// The limits the operator set.
    public struct Limits: Sendable, Equatable {
        /// The most actors a token may carry (`act` nested this deep).
        public var maximumDepth: Int
        /// The longest an access token lives, seconds.
        public var accessTokenLifetime: Int64

        /// Limits as configured.
        public init(maximumDepth: Int, accessTokenLifetime: Int64) {
            self.maximumDepth = maximumDepth
            self.accessTokenLifetime = accessTokenLifetime
        }
    }

    /// What the new token carries.
    public struct Decision: Sendable, Equatable {
        /// Its scope: within the subject's and the acting client's.
        public let permissions: MailPermissions
        /// Its audience.
        public let resource: String
        /// The inboxes it reaches at most (account ids, lowercase): the subject's that the acting client was bound
        /// to; never empty.
        public let inboxIDs: [String]
        /// Its actors: the asking client on top of the subject's.
        public let act: OAuthActorChain
        /// Its `exp`: no later than the subject's, nor than an access token's lifetime from now.
        public let expiresAt: Int64
    }

    /// A rule the exchange broke, in the order they are checked.
    public enum Refusal: Error, Sendable, Equatable {
        /// The subject token has expired (`invalid_request`, RFC 8693 section 2.2.2).
        case subjectExpired
        /// The owner does not let this client act for them (`unauthorized_client`).
        case actorNotAllowed
        /// The subject's `may_act` names another party (`invalid_request`).
        case mayActRefuses
        /// The new token would carry more actors than the limit (`invalid_request`).
        case tooDeep
        /// The scope asked for is wider than the subject's or the acting client's, or they share none
        /// (`invalid_scope`).
        case widerScope
        /// `resource` or `audience` names another audience than the subject's, or two audiences (`invalid_target`).
        case otherAudience
        /// Neither the subject nor the request names an audience (`invalid_request`).
        case noAudience
        /// The acting client was bound to none of the inboxes the subject reaches (`invalid_target`).
        case outsideActorInboxes
    }

    /// The new token's claims, or the first rule broken.
    /// - Parameters:
    ///   - issuer: this server's issuer, which a `may_act` naming an `iss` must name.
    ///   - now: Unix seconds (an injected clock).
    /// - Throws: ``Refusal``.
    public static func decide(
        _ subject: Subject, _ request: Request, limits: Limits, issuer: String, now: Int64
    ) throws(Refusal) -> Decision {
        guard subject.expiresAt > now else { throw .subjectExpired }
        guard request.actorAllowed else { throw .actorNotAllowed }
        if let mayAct = subject.mayAct {
            guard mayAct.subject == request.actorClientID, mayAct.issuer.map({ $0 == issuer }) ?? true else {
                throw .mayActRefuses
            }
        }
        let act = subject.act?.acting(request.actorClientID) ?? OAuthActorChain([request.actorClientID])
        guard let act, act.depth <= limits.maximumDepth else { throw .tooDeep }
        let within = subject.permissions.intersection(request.actorPermissions)
        let permissions = request.permissions ?? within
        guard within.isSuperset(of: permissions), !permissions.isEmpty else { throw .widerScope }
        let asked = Set(request.audiences)
        guard asked.count <= 1 else { throw .otherAudience }
        let resource: String
        switch (asked.first, subject.resource) {
        case (let named?, let held?):
            guard named == held else { throw .otherAudience }
            resource = held
        case (let named?, nil): resource = named
        case (nil, let held?): resource = held
        case (nil, nil): throw .noAudience
        }
        let bound = Set(request.actorInboxIDs.map { $0.lowercased() })
        var inboxIDs = (subject.inboxIDs ?? request.actorInboxIDs).map { $0.lowercased() }.filter(bound.contains)
        if resource.hasPrefix(OAuthAccessClaims.inboxResourcePrefix) {
            // An inbox audience binds the token to that one inbox whatever else it may reach.
            let named = resource.dropFirst(OAuthAccessClaims.inboxResourcePrefix.count).lowercased()
            inboxIDs = inboxIDs.filter { $0 == named }
        }
        guard !inboxIDs.isEmpty else { throw .outsideActorInboxes }
        let expiresAt = min(subject.expiresAt, now + limits.accessTokenLifetime)
        return Decision(
            permissions: permissions, resource: resource, inboxIDs: Self.unique(inboxIDs), act: act,
            expiresAt: expiresAt)
    }

    /// `ids` without repeats, in their first order.
    private static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }
}
