import SecondFactors
import SignInMethods

/// An owner's sign-in half done (issue 88 item 3): they proved the first factor (a password, a provider) and are asked
/// for a second at `/owner/sign-in/second-step` before their session opens. The cookie (``SecondStep``) carries who,
/// how they came in, where they go next, and the stamp of their ways in when the first factor passed
/// (``OwnerCredentialStamp``: a password changed or removed, or a second factor turned on or off since, ends it); it
/// is cleared when the session opens.
struct OwnerSecondStepPending: PendingSecondStep {
    static let fieldCount = 5

    var owner: Owner
    /// The first factor (``AuthenticationMethods/password`` or ``AuthenticationMethods/provider``).
    var methods: AuthenticationMethods
    /// The provider's name when the first factor was one (the session records it for sign-out).
    var provider: String?
    /// Where the session goes once opened (a local path).
    var next: String
    /// The owner's ways in as the first factor found them.
    var stamp: OwnerCredentialStamp

    var cookieFields: [String] { [owner.id, methods.stored, provider ?? "", next, stamp.encoded] }
    var account: String { owner.id }
    var email: String { owner.email }
    var firstFactor: String { methods.contains(.provider) ? "provider" : "password" }
    /// The owner's email, as their password's refusals name them.
    var refusalActor: String { owner.email }

    init(
        owner: Owner, methods: AuthenticationMethods, provider: String?, next: String, stamp: OwnerCredentialStamp
    ) {
        self.owner = owner
        self.methods = methods
        self.provider = provider
        self.next = next
        self.stamp = stamp
    }

    /// The pending sign-in of `owner` whose cookie carried `fields` (``cookieFields``), while `stamp` (the owner's
    /// ways in as they stand now) is the one it carried; nil once they moved.
    init?(owner: Owner, stamp: OwnerCredentialStamp, fields: [String]) {
        guard OwnerCredentialStamp(encoded: fields[4]) == stamp else { return nil }
        self.init(
            owner: owner, methods: AuthenticationMethods(stored: fields[1]), provider: fields[2].isEmpty ? nil : fields[2],
            next: OwnerService.localPath(fields[3]), stamp: stamp)
    }
}
