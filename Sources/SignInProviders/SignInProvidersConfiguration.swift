import ConfigurationReading
import EmailAddresses
import Fetch
import Foundation

/// The identity providers people may sign in with (issue 54), every one read and checked at start.
///
/// ``init(config:readFile:)`` reads `POSTERN_OIDC_PROVIDERS`, then each named provider's keys under
/// `POSTERN_OIDC_<NAME>_` (the name upper-cased), and refuses a bad or missing value naming its key. A key that does
/// not apply to the provider's kind (an issuer for GitHub, GitHub's URLs for OpenID Connect) is refused too, so that a
/// typo in the kind cannot leave a setting silently unused. ``validate(ownerSignUpOpen:)`` adds the rule that spans the
/// owners' part: `_TRUST_EMAIL` is refused while anyone may sign up as an owner.
///
/// ## Configuration keys
/// - `POSTERN_OIDC_PROVIDERS` (comma-separated names of 1 to 32 lower-case letters and digits, at most 16, default
///   none): ``providers``. For each name, upper-cased as `<NAME>`:
///   `POSTERN_OIDC_<NAME>_KIND` (`oidc`, the default, or `github`);
///   `POSTERN_OIDC_<NAME>_ISSUER` (oidc only, required: the issuer URL exactly as the provider's discovery document
///   writes it; https, or http with `_ALLOW_PRIVATE_NETWORK`);
///   `POSTERN_OIDC_<NAME>_CLIENT_ID` (required);
///   `POSTERN_OIDC_<NAME>_CLIENT_SECRET` or `POSTERN_OIDC_<NAME>_CLIENT_SECRET_FILE` (one of them, required: the
///   secret, or a file holding it, read at start, its trailing newline dropped);
///   `POSTERN_OIDC_<NAME>_DISPLAY_NAME` (the button's words, up to 64 characters; default `GitHub` for github, else
///   the name capitalised);
///   `POSTERN_OIDC_<NAME>_SCOPES` (space-separated; default `openid email profile`, which for oidc must contain
///   `openid`; `read:user user:email` for github);
///   `POSTERN_OIDC_<NAME>_SURFACES` (`owners,pro`, the default, or one of them);
///   `POSTERN_OIDC_<NAME>_ALLOW_SIGNUP` (on or off, default off: only linked people sign in);
///   `POSTERN_OIDC_<NAME>_TRUST_EMAIL` (on or off, default off; refused with `POSTERN_OWNER_SIGNUP=open`);
///   `POSTERN_OIDC_<NAME>_ALLOWED_DOMAINS` (comma-separated email domains that may sign up, default any; only with
///   `_ALLOW_SIGNUP`);
///   `POSTERN_OIDC_<NAME>_ALLOW_PRIVATE_NETWORK` (on or off, default off);
///   `POSTERN_OIDC_<NAME>_LOGOUT` (oidc only, on or off, default off: signing out of a session the provider opened
///   also goes to its `end_session_endpoint`);
///   `POSTERN_OIDC_<NAME>_GITHUB_WEB_URL` and `POSTERN_OIDC_<NAME>_GITHUB_API_URL` (github only; defaults
///   `https://github.com` and `https://api.github.com`; GitHub Enterprise's).
public struct SignInProvidersConfiguration: Sendable, Equatable {
    /// The providers in the order `POSTERN_OIDC_PROVIDERS` names them. Default none: no provider button anywhere.
    public var providers: [SignInProvider] = []

    /// The most providers one server may have.
    public static let maximumProviders = 16
    /// The scopes asked of an OpenID Connect provider unless `_SCOPES` says otherwise.
    public static let defaultOIDCScopes = ["openid", "email", "profile"]
    /// The scopes asked of GitHub unless `_SCOPES` says otherwise: the profile (`GET /user`) and the email addresses
    /// (`GET /user/emails`).
    public static let defaultGitHubScopes = ["read:user", "user:email"]
    /// github.com's web origin (its OAuth endpoints).
    public static let gitHubWebURL = "https://github.com"
    /// github.com's REST API.
    public static let gitHubAPIURL = "https://api.github.com"

    /// No provider.
    public init() {}

    /// The providers read from `config` (a reader of whole names: this scopes it to `POSTERN_OIDC`).
    /// - Parameters:
    ///   - config: the operator's settings.
    ///   - readFile: reads a `_CLIENT_SECRET_FILE` (nil when it cannot be read); the file system by default.
    /// - Throws: ``ConfigurationError`` naming the key of a value that is missing, does not parse or is out of range.
    public init(config: ConfigurationReader, readFile: (String) -> String? = Self.readFile) throws {
        let config = config.scoped(to: "POSTERN_OIDC")
        let names = config.list("PROVIDERS") ?? []
        guard names.count <= Self.maximumProviders else {
            throw config.error("PROVIDERS", "names at most \(Self.maximumProviders) providers")
        }
        for name in names {
            guard Self.isProviderName(name) else {
                throw config.error(
                    "PROVIDERS", "each name must be 1 to 32 lower-case letters and digits (got \"\(name)\")")
            }
            guard !providers.contains(where: { $0.name == name }) else {
                throw config.error("PROVIDERS", "names \"\(name)\" twice")
            }
            providers.append(try Self.provider(name, config: config.scoped(to: name.uppercased()), readFile: readFile))
        }
        try validate()
    }

    /// Reads one provider's keys from `config`, scoped to `POSTERN_OIDC_<NAME>`.
    private static func provider(
        _ name: String, config: ConfigurationReader, readFile: (String) -> String?
    ) throws -> SignInProvider {
        let isGitHub = try config.choice("KIND", ["oidc", "github"]) == "github"
        let allowPrivate = try config.flag("ALLOW_PRIVATE_NETWORK") ?? false
        let issuer = config.nonEmptyText("ISSUER")
        let webURL = config.nonEmptyText("GITHUB_WEB_URL")
        let apiURL = config.nonEmptyText("GITHUB_API_URL")
        let kind: SignInProvider.Kind
        let logout = try config.flag("LOGOUT") ?? false
        if isGitHub {
            if issuer != nil { throw config.error("ISSUER", "applies to KIND=oidc only; this provider is github") }
            if logout { throw config.error("LOGOUT", "applies to KIND=oidc only: GitHub has no end-session endpoint") }
            kind = .github(
                webURL: try baseURL(webURL ?? gitHubWebURL, "GITHUB_WEB_URL", config, allowPrivate),
                apiURL: try baseURL(apiURL ?? gitHubAPIURL, "GITHUB_API_URL", config, allowPrivate))
        } else {
            for key in ["GITHUB_WEB_URL", "GITHUB_API_URL"] where config.nonEmptyText(key) != nil {
                throw config.error(key, "applies to KIND=github only; this provider is oidc")
            }
            guard let issuer else { throw config.error("ISSUER", "is required for an OpenID Connect provider") }
            try checkURL(issuer, "ISSUER", config, allowPrivate)
            kind = .oidc(issuer: issuer)
        }

        guard let clientID = config.nonEmptyText("CLIENT_ID") else {
            throw config.error("CLIENT_ID", "is required: the client id the provider issued")
        }
        guard clientID.utf8.count <= 512, clientID.unicodeScalars.allSatisfy(isVisibleASCII) else {
            throw config.error("CLIENT_ID", "must be up to 512 visible ASCII characters")
        }
        let secret = try clientSecret(config, readFile: readFile)

        let displayName =
            config.nonEmptyText("DISPLAY_NAME")
            ?? (isGitHub ? "GitHub" : name.prefix(1).uppercased() + name.dropFirst())
        guard displayName.count <= 64,
            !displayName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw config.error("DISPLAY_NAME", "must be up to 64 characters, none of them a control character") }

        var scopes = isGitHub ? defaultGitHubScopes : defaultOIDCScopes
        if let text = config.text("SCOPES") {
            scopes = text.split(separator: " ").map(String.init)
            var seen: Set<String> = []
            scopes = scopes.filter { seen.insert($0).inserted }
            guard !scopes.isEmpty, scopes.count <= 32, scopes.allSatisfy(isScopeToken) else {
                throw config.error("SCOPES", "must be 1 to 32 space-separated scope tokens")
            }
        }
        if !isGitHub, !scopes.contains("openid") {
            throw config.error("SCOPES", "must contain openid for an OpenID Connect provider")
        }

        var surfaces = Set(SignInProvider.Surface.allCases)
        if let items = config.list("SURFACES") {
            let parsed = items.map { SignInProvider.Surface(rawValue: $0.lowercased()) }
            guard !items.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                throw config.error("SURFACES", "must be owners, pro or owners,pro")
            }
            surfaces = Set(parsed.compactMap { $0 })
        }

        let allowSignUp = try config.flag("ALLOW_SIGNUP") ?? false
        let trustEmail = try config.flag("TRUST_EMAIL") ?? false
        var allowedDomains: [String] = []
        if let items = config.list("ALLOWED_DOMAINS") {
            allowedDomains = items.map { EmailDomain.key($0) }
            guard allowedDomains.allSatisfy(isDomainName) else {
                throw config.error("ALLOWED_DOMAINS", "must be comma-separated domain names")
            }
            guard allowSignUp || allowedDomains.isEmpty else {
                throw config.error("ALLOWED_DOMAINS", "applies only with \(config.key("ALLOW_SIGNUP"))=on")
            }
        }
        return SignInProvider(
            name: name, kind: kind, clientID: clientID, clientSecret: secret, displayName: displayName,
            scopes: scopes, surfaces: surfaces, allowSignUp: allowSignUp, trustEmail: trustEmail,
            allowedDomains: allowedDomains, allowPrivateNetwork: allowPrivate, logout: logout)
    }

    /// `_CLIENT_SECRET`, or the contents of `_CLIENT_SECRET_FILE` without its trailing newline: exactly one.
    private static func clientSecret(
        _ config: ConfigurationReader, readFile: (String) -> String?
    ) throws -> SignInProvider.ClientSecret {
        let literal = config.raw("CLIENT_SECRET")
        let path = config.nonEmptyText("CLIENT_SECRET_FILE")
        switch (literal, path) {
        case (_?, _?):
            throw config.error("CLIENT_SECRET_FILE", "set either \(config.key("CLIENT_SECRET")) or this, not both")
        case (nil, nil):
            throw config.error("CLIENT_SECRET", "is required (or \(config.key("CLIENT_SECRET_FILE")))")
        case (let secret?, nil):
            return SignInProvider.ClientSecret(secret)
        case (nil, let path?):
            guard let contents = readFile(path) else {
                throw config.error("CLIENT_SECRET_FILE", "cannot be read (\(path))")
            }
            var secret = Substring(contents)
            while let last = secret.last, last == "\n" || last == "\r\n" || last == "\r" { secret = secret.dropLast() }
            guard !secret.isEmpty else { throw config.error("CLIENT_SECRET_FILE", "is empty (\(path))") }
            return SignInProvider.ClientSecret(String(secret))
        }
    }

    /// Refuses what a URL key may not be: not an absolute http(s) URL, http without `_ALLOW_PRIVATE_NETWORK`, or with
    /// userinfo, a query or a fragment.
    private static func checkURL(
        _ text: String, _ key: String, _ config: ConfigurationReader, _ allowPrivate: Bool
    ) throws {
        guard let url = try? FetchURL(parsing: text), !text.contains("@"), !text.contains("?"), !text.contains("#")
        else { throw config.error(key, "must be an absolute https URL without a query or fragment (got \"\(text)\")") }
        guard url.isHTTPS || allowPrivate else {
            throw config.error(key, "must be https (http only with \(config.key("ALLOW_PRIVATE_NETWORK"))=on)")
        }
    }

    /// A checked base URL without its trailing slashes, to which paths are appended.
    private static func baseURL(
        _ text: String, _ key: String, _ config: ConfigurationReader, _ allowPrivate: Bool
    ) throws -> String {
        try checkURL(text, key, config, allowPrivate)
        var base = Substring(text)
        while base.hasSuffix("/") { base = base.dropLast() }
        return String(base)
    }

    /// Refuses settings the server cannot run with, naming the key at fault.
    /// - Throws: ``ConfigurationError``.
    public func validate() throws {
        guard providers.count <= Self.maximumProviders else {
            throw ConfigurationError(
                key: "POSTERN_OIDC_PROVIDERS", message: "names at most \(Self.maximumProviders) providers")
        }
        var names: Set<String> = []
        for provider in providers {
            guard Self.isProviderName(provider.name), names.insert(provider.name).inserted else {
                throw ConfigurationError(
                    key: "POSTERN_OIDC_PROVIDERS", message: "names must be unique lower-case letters and digits")
            }
            guard !provider.surfaces.isEmpty else {
                throw ConfigurationError(key: provider.key("SURFACES"), message: "must be owners, pro or owners,pro")
            }
        }
    }

    /// The rule that spans the owners' part: a provider trusted to vouch for an email (`_TRUST_EMAIL`) would hand
    /// whoever registered that address first the provider's person, or the reverse (the pre-hijack of Keycloak #53041),
    /// so it is refused while anyone may create an owner with any address.
    /// - Parameter ownerSignUpOpen: `POSTERN_OWNER_SIGNUP=open`.
    /// - Throws: ``ConfigurationError`` naming the first provider's `_TRUST_EMAIL`.
    public func validate(ownerSignUpOpen: Bool) throws {
        guard ownerSignUpOpen, let provider = providers.first(where: \.trustEmail) else { return }
        throw ConfigurationError(
            key: provider.key("TRUST_EMAIL"),
            message: "cannot be on while POSTERN_OWNER_SIGNUP=open: anyone could register the address first")
    }

    /// The provider named `name`, if configured.
    public func provider(named name: String) -> SignInProvider? { providers.first { $0.name == name } }

    /// Reads a whole file as UTF-8; nil when it cannot be read.
    public static func readFile(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// 1 to 32 of `a-z 0-9`.
    static func isProviderName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// `%x21-7E`.
    static func isVisibleASCII(_ scalar: Unicode.Scalar) -> Bool { (0x21...0x7E).contains(scalar.value) }

    /// RFC 6749 section 3.3's scope-token: `%x21 / %x23-5B / %x5D-7E`, up to 128 characters.
    static func isScopeToken(_ token: String) -> Bool {
        (1...128).contains(token.utf8.count)
            && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// A lower-case DNS name: dot-separated labels of `a-z 0-9 -`, 1 to 63 each, not starting or ending with `-`, at
    /// most 253 in all.
    static func isDomainName(_ name: String) -> Bool {
        guard (1...253).contains(name.utf8.count) else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy {
                    (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-")
                }
        }
    }
}
