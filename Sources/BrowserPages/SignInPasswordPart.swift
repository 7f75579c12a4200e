import ServerKit

/// The password part of "Sign-in methods" (issue 56), `/owner`'s and the Pro dashboard's alike: whether the account
/// has a password (`#password-state`, its first words `Password: set` or `Password: none` in `#method-password`) and,
/// when another way in is left (a passkey that signs in or a linked provider: SignInProviders' `SignInWays`), the form
/// that removes it (`#remove-password`: `POST` to `action`, fields `password`, asked once more, and `csrf_token`).
public struct SignInPasswordPart {
    /// Whether the account has a password.
    public var hasPassword: Bool
    /// Whether the remove form is shown.
    public var removable: Bool
    /// Where the remove form posts (`/owner/password/remove`, `/inbox/password/remove`).
    public var action: String
    /// The CSRF token the form carries.
    public var csrfToken: String
    /// What an account without a password reads after `Password: none:` (how it signs in, how to get one back).
    public var withoutPassword: String

    /// Memberwise.
    public init(hasPassword: Bool, removable: Bool, action: String, csrfToken: String, withoutPassword: String) {
        self.hasPassword = hasPassword
        self.removable = removable
        self.action = action
        self.csrfToken = csrfToken
        self.withoutPassword = withoutPassword
    }

    /// The part's HTML.
    public func render() -> HTML {
        guard hasPassword else {
            return """
                <h3>Password</h3>
                <p id="password-state"><span id="method-password">Password: none</span>: \(withoutPassword)</p>

                """
        }
        guard removable else {
            return """
                <h3>Password</h3>
                <p id="password-state"><span id="method-password">Password: set</span>. You sign in with your email \
                and password.</p>

                """
        }
        return """
            <h3>Password</h3>
            <p id="password-state"><span id="method-password">Password: set</span>. You also sign in with your email \
            and password.</p>
            <form method="post" action="\(action)" id="remove-password">
            <input type="hidden" name="\(BrowserForms.csrfField)" value="\(csrfToken)">\
            <label for="current-password">Your password, to remove it</label>
            <input id="current-password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit" class="danger">Remove my password</button>
            </form>

            """
    }
}
