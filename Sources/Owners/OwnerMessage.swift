import SecondFactors

/// What the owner pages say. One table, so that no page can leak more than these (never which emails exist).
enum OwnerMessage {
    static let wrongCredentials = "Wrong email or password."
    static let csrf = "This form expired. Please try again."
    static let signInAgain = "Sign in again to go on: making an app password needs a recent sign-in."
    static let wrongCode = TwoStepParts.wrongCode
    static let secondFactorProofNeeded = TwoStepParts.proofNeeded
    static let secondStepStartOver = TwoStepParts.startOver
    static let tooManySignUps = "Too many new accounts from your network. Please try again later."

    static func inboxLimit(_ limit: Int) -> String {
        "You hold \(limit) inboxes, the most one owner may hold. Use one of them, or ask the operator for more."
    }

    static func slowDown(_ seconds: Int64) -> String {
        "Too many failed sign-ins for this email. Try again in \(seconds) second\(seconds == 1 ? "" : "s")."
    }

    static func words(for error: OwnerError) -> String {
        switch error {
        case .invalidEmail: return "That is not an email address."
        case .weakPassword:
            return "Choose a password of at least \(OwnerCredentials.minimumPasswordLength) characters."
        // Never shown by sign-up, which answers a taken email as a new account (no page may tell who exists); kept
        // for a caller that makes owners for the operator.
        case .emailTaken: return "That email cannot be used."
        }
    }
}
