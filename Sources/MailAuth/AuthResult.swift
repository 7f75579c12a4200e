/// An authentication check's outcome, as the RFC 8601 result token it is reported with.
public enum AuthResult: String, Sendable, Equatable {
    case pass, fail, softfail, neutral, none, temperror, permerror, policy
}
