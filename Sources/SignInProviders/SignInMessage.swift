/// What every surface's provider pages say: fixed sentences, never a provider's error text or which check failed.
public enum SignInMessage {
    public static let failed = "Signing in with the provider did not work. Nothing was changed: please try again."
    public static let unknownProvider = "That sign-in provider is not available here."
    public static let unreachable = "The sign-in provider cannot be reached right now. Please try again later."
    /// The provider answers, but not as this server is set up to expect (its discovery document was refused: another
    /// issuer, a missing endpoint): trying again will not help.
    public static let misconfigured =
        "This sign-in provider is misconfigured on this server, so it cannot be used. Please tell the server's operator."
    /// The person cancelled at the provider (`error=access_denied` at the callback).
    public static let cancelled = "You cancelled at the provider: nothing was changed. Sign in again when you want to."

    /// The sentence for a provider that could not be used at the start of a sign-in: misconfigured when its discovery
    /// document was refused, unreachable otherwise.
    public static func unavailable(_ error: ProviderError) -> String {
        if case .discovery = error { return misconfigured }
        return unreachable
    }
    /// Too many sign-ins wait for their provider's answer (``SignInFlow/StartError/busy``).
    public static let busy = "Too many sign-ins are in progress here right now. Please try again in a few minutes."
    public static let linkExpired = "This link request expired or was never made. Sign in with the provider again."
    public static let wrongPassword = "Wrong password: nothing was linked."
    public static let notLinked = "That sign-in is not linked to your account."
    /// An unlink done (the "Sign-in methods" section's notice).
    public static let unlinked = "Sign-in provider unlinked: it no longer signs you in."
    /// A password removed from "Sign-in methods" (issue 56).
    public static let passwordRemoved = "Password removed: you sign in with your passkeys or linked providers."
    /// A password not removed: the one typed to confirm is not the account's.
    public static let passwordNotRemoved = "That is not your password: it was not removed."
    /// A password removal not tried: too many wrong passwords, as the password sign-in's backoff counts them.
    public static func passwordRemovalSlowed(retryAfter seconds: Int64) -> String {
        "Too many wrong passwords. Try again in \(seconds) seconds."
    }
    /// The password question not asked: too many wrong passwords for the account's email, as its sign-in counts them.
    public static func signInSlowed(retryAfter seconds: Int64) -> String {
        "Too many failed sign-ins for this email. Try again in \(seconds) second\(seconds == 1 ? "" : "s")."
    }
    /// A passkey not added or a provider not linked: the session's sign-in is not recent enough to prove who adds a
    /// lasting way in (issue 66 item 4).
    public static let proofNeeded =
        "Adding a way to sign in needs a recent sign-in: sign out, sign in again (with your password, a passkey or a provider), then add it within 5 minutes."
    /// A change refused because it would leave the account no way in (``SignInWays``).
    public static let lastWay =
        "That is your only way to sign in: add a passkey or link a provider first (or ask the operator for a password)."

    /// The "Sign-in methods" section's notice of a link asked for from it; whether it is an error.
    public static func linked(_ outcome: SignInLinkOutcome) -> (words: String, isError: Bool) {
        switch outcome {
        case .linked: ("Sign-in provider linked: you can sign in with it now.", false)
        case .alreadyLinked: ("That sign-in was linked to your account already.", false)
        case .linkedToAnother: ("That sign-in is linked to another account, and stays so: nothing changed.", true)
        }
    }

    /// The sentence of a refused link or sign-up.
    public static func words(for refusal: ProviderLinking.Refusal, provider: SignInProvider) -> String {
        switch refusal {
        case .linkedToAnother: "That sign-in is linked to another account."
        case .emailNotVerified:
            "No account here is linked to your \(provider.displayName) sign-in, and it gave no verified email address."
        case .emailNotASCII:
            "No account here is linked to your \(provider.displayName) sign-in, and its email address has characters before the @ that accounts here cannot take."
        case .accountWithoutPassword:
            "An account here already uses that email. Sign in to it the way you usually do, then link \(provider.displayName) from your account page."
        case .signUpClosed: "No account here is linked to your \(provider.displayName) sign-in."
        case .domainNotAllowed: "Accounts with that email domain cannot be made here."
        }
    }
}

extension SignInRefusal {
    /// The sentence the page shows: that the person cancelled, for a provider's `access_denied`; else that the
    /// sign-in did not work.
    public var words: String {
        if case .providerRefused("access_denied") = self { return SignInMessage.cancelled }
        return SignInMessage.failed
    }

    /// The refusal's reason as the audit trail records it (`*.signin_failed`'s `reason`); a provider's refusal with
    /// its `error` code (`provider_refused:access_denied`), kept to the code's characters (RFC 6749 section 4.1.2.1:
    /// printable ASCII but `"` and `\`; here letters, digits, `_`, `-` and `.`, at most 64).
    public var reason: String {
        switch self {
        case .malformedCallback: "malformed_callback"
        case .noTransaction: "no_transaction"
        case .providerRefused(let error):
            "provider_refused:" + Self.errorCode(error)
        case .unknownProvider: "unknown_provider"
        case .issuerParameter: "iss_parameter"
        case .provider(.token): "id_token"
        case .provider: "provider"
        case .tokenEndpoint: "token_endpoint"
        case .token: "token_refused"
        case .noIDToken: "no_id_token"
        case .userDocument: "user_document"
        }
    }
}

extension SignInRefusal {
    /// `text` (a provider's `error`, its words) kept to the characters of an error code: ASCII letters, digits, `_`,
    /// `-` and `.`, at most 64.
    static func errorCode(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "_-.".unicodeScalars.contains(scalar)
        }
        return String(String.UnicodeScalarView(kept.prefix(64)))
    }
}
