/// The `_next` lists of successful responses: plain-English next steps for an agent.
struct AgentNextSteps: Sendable {
    /// After `POST /api/v1/challenge`.
    let challenge: [String]
    /// After a signup.
    let signup: [String]
    /// After a login.
    let login: [String]
    /// After `POST /api/v1/capability`.
    let capability: [String]

    init(_ configuration: AgentAuthConfiguration) {
        let refresh = Self.duration(configuration.capabilityTTL)
        let docs = configuration.publicURL + "/llms.txt"
        challenge = [
            "Solve the proof of work: find the smallest nonce (0, 1, 2, ...) such that scrypt(\"<challenge>:<nonce>\", "
                + "salt, N=16384, r=8, p=1, dkLen=64) starts with `difficulty` zero bits; use the UTF-8 bytes of the "
                + "salt text",
            "POST /api/v1/session with this challenge JWT as bearer and {\"powHex\",\"nonce\",\"username\"} to sign up, "
                + "or {\"powHex\",\"nonce\",\"apiKey\"} to log in",
            "Details: \(docs)#proof-of-work",
        ]
        let afterSession = [
            "Acquire the capability JWT by presenting your session JWT at POST /api/v1/capability",
            "Refresh it every \(refresh)",
            "Use it as a bearer auth token for JMAP requests",
        ]
        signup = ["Store the apiKey securely: it is shown only once and logs you in later"] + afterSession
        login = afterSession
        capability = [
            "Use the capability JWT as a bearer auth token for JMAP requests",
            "Refresh it every \(refresh) at POST /api/v1/capability with your session JWT",
            "When the session JWT expires after \(Self.duration(configuration.sessionTTL)), log in again: fresh "
                + "challenge, proof of work, and your apiKey at POST /api/v1/session",
        ]
    }

    /// "2 minutes", "1 hour", "90 seconds".
    static func duration(_ seconds: Int64) -> String {
        if seconds % 3600 == 0 {
            return seconds == 3600 ? "1 hour" : "\(seconds / 3600) hours"
        }
        if seconds % 60 == 0 {
            return seconds == 60 ? "1 minute" : "\(seconds / 60) minutes"
        }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }
}
