/// What an OpenID authorization request gets, given the browser's session (OpenID Connect Core 1.0 section 3.1.2.1:
/// `prompt`, `max_age`, `login_hint`). Pure, with the clock injected: the table the tests walk.
///
/// Rules, in order:
/// 1. No session: sign in (`prompt=none`: `login_required`).
/// 2. `prompt=login`, or a `login_since` the session predates: sign in again (the service drops `prompt=login` from
///    the request it comes back with and adds `login_since`, so that the new session satisfies it).
/// 3. `max_age` shorter than the session's age (`now - auth_time`): sign in again (`prompt=none`: `login_required`).
/// 4. A `login_hint` that names another owner than the session's: sign in (`prompt=none`: `login_required`).
/// 5. `prompt=consent`: the consent page, even for a first-party client or a remembered consent.
/// 6. Neither first party nor consent remembered for every scope asked: the consent page (`prompt=none`:
///    `consent_required`).
/// 7. Otherwise: a code.
enum OIDCPrompt {
    /// The decision.
    enum Decision: Sendable, Equatable {
        /// Send the browser to the sign-in page; `again`: even a signed-in browser signs in anew.
        case signIn(again: Bool)
        /// Answer the relying party with this OpenID error at its redirect URI.
        case error(String)
        /// Show the consent page.
        case consent
        /// Issue a code.
        case issue
    }

    /// What the request asked for.
    struct Request: Sendable, Equatable {
        /// `prompt` values (`none` never with another: the parser refuses that).
        var prompts: Set<String> = []
        /// `max_age`, seconds.
        var maxAge: Int64?
        /// The earliest `auth_time` accepted (set when a `prompt=login` sign-in was started), Unix seconds.
        var loginSince: Int64?
        /// `login_hint`, when it is an email.
        var loginHint: String?
    }

    /// The browser's session, if any.
    struct Session: Sendable, Equatable {
        /// When it signed in, Unix seconds.
        var authTime: Int64
        /// Its owner's email.
        var email: String
    }

    /// Decides `request` for `session` at `now`.
    /// - Parameters:
    ///   - consented: whether the owner's remembered consent covers every scope asked.
    ///   - firstParty: whether the operator marked the client first party (no consent page).
    static func decide(
        _ request: Request, session: Session?, consented: Bool, firstParty: Bool, now: Int64
    ) -> Decision {
        let none = request.prompts.contains("none")
        guard let session else { return none ? .error("login_required") : .signIn(again: false) }
        if request.prompts.contains("login") { return .signIn(again: true) }
        if let since = request.loginSince, session.authTime < since {
            return none ? .error("login_required") : .signIn(again: true)
        }
        if let maxAge = request.maxAge, now - session.authTime > maxAge {
            return none ? .error("login_required") : .signIn(again: true)
        }
        if let hint = request.loginHint, hint.lowercased() != session.email.lowercased() {
            return none ? .error("login_required") : .signIn(again: true)
        }
        if request.prompts.contains("consent") { return .consent }
        if firstParty || consented { return .issue }
        return none ? .error("consent_required") : .consent
    }
}
