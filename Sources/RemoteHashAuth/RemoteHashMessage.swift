import Fetch
import OutboundSocket

/// The exact error texts of CONTRACT 3.2, and a few of ours for transport-level refusals.
enum RemoteHashMessage {
    static let urlInvalid = "Password hash URL is invalid."
    static let couldNotFetch = "Could not fetch password hash URL."
    static let notArgon2 = "Password hash URL did not return an Argon2 hash."
    static let passwordMismatch = "Password does not match the remote Argon2 hash."
    static let emailTaken = "Email has already been taken"
    static let emailBlank = "Email can't be blank"
    static let emailInvalid = "Email is invalid"
    static let urlBlank = "Password hash URL can't be blank"
    /// CONTRACT 3.2's `Password hash URL is not allowed.`, then which rule refused it and which setting opens it.
    static func urlNotAllowed(_ category: AddressCategory) -> String {
        let kind: String
        switch category {
        case .global: kind = "a public"
        case .loopback: kind = "a loopback"
        case .private: kind = "a private-network"
        case .linkLocal: kind = "a link-local"
        case .sharedAddressSpace: kind = "a carrier-grade NAT"
        case .metadata: kind = "a cloud metadata service's"
        case .unspecified: kind = "an unspecified (0.0.0.0 or ::)"
        case .multicast: kind = "a multicast"
        case .broadcast: kind = "a broadcast"
        case .reserved: kind = "a reserved or documentation"
        }
        let opens: String
        if category.opensWithAllowPrivate {
            opens = "the server's operator can allow such addresses with POSTERN_OUTBOUND_ALLOW_PRIVATE=true, "
                + "or this host alone by listing it in POSTERN_OUTBOUND_ALLOWED_HOSTS."
        } else if category.isOverridable {
            opens = "only listing the host in the operator's POSTERN_OUTBOUND_ALLOWED_HOSTS allows it."
        } else {
            opens = "no web server answers there, and no setting allows it."
        }
        return "Password hash URL is not allowed. It points at \(kind) address; \(opens)"
    }
    static let aboveLimits = "Password hash URL returned an Argon2 hash with parameters above this server's limits."
    static let invalidLogin = "Invalid email or password."
    static let invalidToken = "Invalid token."
    static let invalidTokenOrCredentials = "Invalid token or credentials."
    static let tooManyRequests = "Too many requests."
    static let registered = "Registration succeeded."
    static let busy = "Too many password checks in progress; try again shortly."
    static let internalError = "Something went wrong on the server; try again."
    static let unavailable = "The database is unavailable; try again shortly."
    static let badBody = "The request body could not be read."
    static let csrf = "This form expired or did not come from this page. Please submit it again."
}
