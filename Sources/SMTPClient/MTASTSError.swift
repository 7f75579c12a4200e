/// Why an MTA-STS record or policy is not valid; the sender then treats the domain as having no policy
/// (RFC 8461 §3.1, §3.3), unless a cached valid policy still applies.
public enum MTASTSError: Error, Sendable, Equatable {
    /// The TXT record does not start with `v=STSv1`.
    case notAnSTSRecord
    /// A TXT record field is not `name=value` of the allowed characters, or the id is not 1 to 32 letters and digits.
    case malformedRecord
    /// A field that must appear once appears more than once.
    case duplicateField(String)
    /// A required field is absent (`id` of the record; `version`, `mode`, `max_age` or any `mx` of the policy).
    case missingField(String)
    /// A policy line is not `key: value`, or an extension field's value is not printable.
    case malformedPolicyLine
    /// `version` is not `STSv1`.
    case unsupportedVersion
    /// `mode` is not `enforce`, `testing` or `none`.
    case invalidMode
    /// `max_age` is not 1 to 10 digits or is above 31557600.
    case invalidMaxAge
    /// An `mx` value is not a host name or `*.` and a domain.
    case invalidMXPattern
    /// The policy body is larger than ``MTASTSPolicy/maximumBytes``.
    case policyTooLarge
}
