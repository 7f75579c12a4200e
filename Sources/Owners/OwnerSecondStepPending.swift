import SecondFactors
import SignInMethods

/// An owner's sign-in half done (issue 88 item 3): they proved the first factor (a password, a provider) and are asked
/// for a second at `/owner/sign-in/second-step` before their session opens. The cookie (``SecondStep``) carries who,
/// how they came in, and where they go next; it is cleared when the session opens.
struct OwnerSecondStepPending: PendingSecondStep {
    static let fieldCount = 4

    var owner: Owner
    /// The first factor (``AuthenticationMethods/password`` or ``AuthenticationMethods/provider``).
    var methods: AuthenticationMethods
    /// The provider's name when the first factor was one (the session records it for sign-out).
    var provider: String?
    /// Where the session goes once opened (a local path).
    var next: String

    var cookieFields: [String] { [owner.id, methods.stored, provider ?? "", next] }
    var account: String { owner.id }
    var email: String { owner.email }
    var firstFactor: String { methods.contains(.provider) ? "provider" : "password" }
    /// The owner's email, as their password's refusals name them.
    var refusalActor: String { owner.email }

    init(owner: Owner, methods: AuthenticationMethods, provider: String?, next: String) {
        self.owner = owner
        self.methods = methods
        self.provider = provider
        self.next = next
    }

    /// The pending sign-in of `owner` whose cookie carried `fields` (``cookieFields``).
    init(owner: Owner, fields: [String]) {
        self.init(
            owner: owner, methods: AuthenticationMethods(stored: fields[1]), provider: fields[2].isEmpty ? nil : fields[2],
            next: OwnerService.localPath(fields[3]))
    }
}
