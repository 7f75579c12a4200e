import SecondFactors
import SignInMethods

/// A sign-in half done (issue 88 item 3): the owner proved the first factor (a password, a provider) and is asked for
/// a second before their session opens. Carried to `/owner/sign-in/second-step` in a cookie sealed with the owner
/// pages' key (``SealedCookie``) for five minutes: who, how they came in, and where they go next. Nothing is stored;
/// the cookie alone opens nothing (a code must follow, under the backoff), and it is cleared when the session opens.
struct OwnerSecondStepPending: Equatable {
    /// The cookie, sent to the second step's path only.
    static let cookie = "postern_second_step"
    static let path = "/owner/sign-in/second-step"
    /// Seconds the first factor holds for the second.
    static let lifetime = SecondStepCookie.lifetime
    private static let purpose = "owner second step"

    var ownerID: String
    /// The first factor (``AuthenticationMethods/password`` or ``AuthenticationMethods/provider``).
    var methods: AuthenticationMethods
    /// The provider's name when the first factor was one (the session records it for sign-out).
    var provider: String?
    /// Where the session goes once opened (a local path).
    var next: String

    /// The cookie value.
    func seal(browserKey: [UInt8], now: Int64) throws -> String {
        try SecondStepCookie.seal(
            [ownerID, methods.stored, provider ?? "", next], purpose: Self.purpose, browserKey: browserKey, now: now)
    }

    /// The pending sign-in a cookie value carries, when it is intact and unexpired.
    init?(cookie: String, browserKey: [UInt8], now: Int64) {
        guard
            let parts = SecondStepCookie.open(
                cookie, count: 4, purpose: Self.purpose, browserKey: browserKey, now: now)
        else { return nil }
        self.init(
            ownerID: parts[0], methods: AuthenticationMethods(stored: parts[1]),
            provider: parts[2].isEmpty ? nil : parts[2], next: OwnerService.localPath(parts[3]))
    }

    init(ownerID: String, methods: AuthenticationMethods, provider: String?, next: String) {
        self.ownerID = ownerID
        self.methods = methods
        self.provider = provider
        self.next = next
    }
}
