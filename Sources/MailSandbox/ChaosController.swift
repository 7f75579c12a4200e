import HTTP1
import JSON
import MailboxAccounts
import MailboxRoutes
import SMTPServer
import ServerKit

/// The APIs that set SMTP failure injection (issue 71 item 4; docs/api/chaos.md): the operator's server-wide rules
/// for the ingest port at `/api/operator/chaos` (behind `POSTERN_OPERATOR_TOKEN`), and each Pro user's own rules for
/// their sandbox sessions at `/api/user/sandbox/chaos` (their Pro token). `GET` reads what is in force and what is left
/// of it, `PUT` replaces it (``ChaosRulesJSON``), `DELETE` clears it. With `POSTERN_SMTP_CHAOS` off, `GET` says
/// `"enabled": false` and `PUT` is 409 `chaos_disabled`.
public struct ChaosController: Sendable {
    let surface: MailboxService
    /// The rules every SMTP listener asks; nil when failure injection is off.
    let chaos: SMTPChaos?

    /// - Parameters:
    ///   - surface: the Mail.td surface: the operator's bearer, the Pro users' tokens, rate limits and answers.
    ///   - chaos: the runtime's one rule book, which the listeners ask; nil when `POSTERN_SMTP_CHAOS` is off.
    public init(surface: MailboxService, chaos: SMTPChaos?) {
        self.surface = surface
        self.chaos = chaos
    }

    /// Adds the routes to `router` (the operator's only when its token is set).
    public func register(on router: inout ContextRouter) {
        let limit = ChaosRulesJSON.bodyLimit
        let user = "/api/user/sandbox/chaos"
        router.add(.GET, user, surface.deferred(.general) { call in try await read(.user(surface.requireProUserID(call))) })
        router.add(.PUT, user, bodyLimit: limit, surface.deferred(.general) { call in
            try await replace(.user(surface.requireProUserID(call)), call)
        })
        router.add(.DELETE, user, surface.deferred(.general) { call in try await clear(.user(surface.requireProUserID(call))) })
        let server = "/api/operator/chaos"
        if let get = surface.operatorOnly({ _ in read(.server) }),
            let put = surface.operatorOnly({ call in replace(.server, call) }),
            let delete = surface.operatorOnly({ _ in clear(.server) })
        {
            router.add(.GET, server, surface.deferred(.general, get))
            router.add(.PUT, server, bodyLimit: limit, surface.deferred(.general, put))
            router.add(.DELETE, server, surface.deferred(.general, delete))
        }
    }

    /// `GET`: `{"enabled","seed","rules":[... with "remaining"]}`.
    func read(_ scope: SMTPChaosScope) -> HTTPResponse {
        MailboxJSON.response(.ok, ChaosRulesJSON.render(chaos?.rules(for: scope), enabled: chaos != nil))
    }

    /// `PUT`: the rules replaced, answered as `GET` answers; 400 naming the member at fault, 409 when off.
    func replace(_ scope: SMTPChaosScope, _ call: MailboxCall) -> HTTPResponse {
        guard let chaos else {
            return MailboxJSON.response(
                .conflict,
                [
                    ("error", .string("chaos_disabled")),
                    ("message", .string("SMTP failure injection is off on this server: set POSTERN_SMTP_CHAOS=on")),
                ])
        }
        let parsed: (rules: [SMTPChaosRule], seed: UInt64?)
        do {
            parsed = try ChaosRulesJSON.parse(call.request.body)
        } catch {
            return Self.invalid(error.parameter, error.message)
        }
        if case .user = scope,
            let index = parsed.rules.firstIndex(where: { [.connect, .helo].contains($0.stage) })
        {
            // Before AUTH the sandbox does not know whose session it is.
            return Self.invalid(
                "rules[\(index)].stage", "a sandbox rule's stage is auth, mail, rcpt, data or after-data")
        }
        let seed = parsed.seed ?? UInt64.random(in: 0...UInt64(ChaosRulesJSON.maxSeed))
        chaos.set(parsed.rules, seed: seed, for: scope)
        return read(scope)
    }

    /// `DELETE`: 204.
    func clear(_ scope: SMTPChaosScope) -> HTTPResponse {
        chaos?.clear(scope)
        return MailboxJSON.noContent()
    }

    /// 400 `{"error":"invalid_request","parameter","message"}`, as the operator API's parameters are refused.
    static func invalid(_ parameter: String, _ message: String) -> HTTPResponse {
        MailboxJSON.response(
            .badRequest,
            [("error", .string("invalid_request")), ("parameter", .string(parameter)), ("message", .string(message))])
    }
}
