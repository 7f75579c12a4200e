import AgentAuth
import AgentClient
import ArgumentParser
import Foundation
import PosternApp
import PosternOperations

/// `postern agent signup|login`: an agent client that solves the proof of work on all cores (or, `login --device`,
/// takes OAuth tokens with the device flow); `list` and `revoke`: the agent accounts of this server.
struct Agent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: """
            Sign up or log in to an agent auth server (Postern or Atomic Mail) as an agent would; list and revoke \
            accounts.
            """,
        subcommands: [Signup.self, Login.self, List.self, Revoke.self])

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account; prints the API key (shown once), the inbox and a capability token.")
        @Option(help: "Base URL of the auth server, e.g. http://127.0.0.1:8080.") var url: String
        @Option(help: "Username: 5 to 21 of a-z 0-9 . _ -, starting and ending with a letter or digit.")
        var username: String
        @Option(help: "Proof-of-work salt text when the server's challenge body has none.")
        var salt: String = AgentAuthConfiguration.defaultPoWSalt
        @Flag(help: "Print one JSON object on standard output and nothing else (the progress stays on standard error).")
        var json = false

        func run() async throws {
            // Checked here, so that a name the server would refuse costs no proof of work.
            switch AgentUsername.check(username) {
            case .invalid?:
                fail("'\(username)' is not a valid username: use 5 to 21 of a-z 0-9 . _ -, starting and ending "
                    + "with a letter or digit (--username)")
            case .reserved?:
                fail("'\(username)' is a reserved username; choose another with --username")
            case nil: break
            }
            let base = try baseURL(url)
            defer { AgentClientEvents.endProgressLine() }
            do {
                let client = try AgentClient(salt: salt)
                report(try await client.signup(url: base, username: username, events: .terminal), json)
            } catch let error as AgentClientError {
                fail(AgentCLIError.words(for: error, url: url, username: username))
            }
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: """
                Log in with an API key (prints the inbox and a capability token), or with --device as an OAuth client \
                without a browser: the owner approves a code on another device (prints the OAuth tokens).
                """)
        @Option(help: "Base URL of the auth server.") var url: String
        @Option(name: .customLong("api-key"), help: "The API key printed at signup.") var apiKey: String?
        @Option(help: "Proof-of-work salt text when the server's challenge body has none.")
        var salt: String = AgentAuthConfiguration.defaultPoWSalt
        @Flag(help: "Print one JSON object on standard output and nothing else (the progress stays on standard error).")
        var json = false
        @OptionGroup var device: DeviceLoginOptions

        func validate() throws {
            guard (apiKey != nil) != device.device else {
                throw ValidationError("give exactly one of --api-key and --device")
            }
        }

        func run() async throws {
            let base = try baseURL(url)
            guard let apiKey else {
                do {
                    let (tokens, clientID) = try await device.login(base)
                    report(tokens, clientID: clientID, json)
                } catch let error as AgentClientError {
                    fail(error.status == 0 ? AgentCLIError.words(for: error, url: url, username: nil) : "\(error)")
                }
                return
            }
            defer { AgentClientEvents.endProgressLine() }
            do {
                let client = try AgentClient(salt: salt)
                report(try await client.login(url: base, apiKey: apiKey, events: .terminal), json)
            } catch let error as AgentClientError {
                fail(AgentCLIError.words(for: error, url: url, username: nil))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List this server's agent accounts, oldest first: address, owner, created, last login.",
            discussion: """
                "owner -" is an inbox nobody holds; "last login never" an API key not used to log in since signup.
                """)
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try await Operations.listAgents(configuration: $0, logger: $1) }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an agent account of this server: its API key and sessions stop working at once.")
        @OptionGroup var options: DataOptions
        @Option(help: "The agent's username.") var username: String

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            guard try await Operations.revokeAgent(configuration: configuration, username: username, logger: logger)
            else { throw CommandFailure("no live agent account named \(username)") }
            Terminal.write("revoked \(username)")
        }
    }
}

private func baseURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
        throw ValidationError("--url must be an absolute http or https URL")
    }
    return url
}

/// Prints `postern: <message>` on standard error and exits with status 1.
private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("postern: \(message)\n".utf8))
    Foundation.exit(1)
}

private func report(_ credentials: AgentCredentials, _ json: Bool) {
    guard json else {
        if let apiKey = credentials.apiKey { Terminal.write("apiKey: \(apiKey)") }
        Terminal.write("inbox: \(credentials.inbox)")
        Terminal.write("capability (expires in \(credentials.capabilityExpiresIn) s): \(credentials.capabilityToken)")
        return
    }
    var object: [String: Any] = [
        "inbox": credentials.inbox, "session_token": credentials.sessionToken,
        "capability_token": credentials.capabilityToken, "capability_expires_in": credentials.capabilityExpiresIn,
    ]
    if let apiKey = credentials.apiKey { object["api_key"] = apiKey }
    if let username = credentials.username { object["username"] = username }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    Terminal.writeJSON(Array(data))
}

private func report(_ tokens: DeviceLoginClient.Tokens, clientID: String, _ json: Bool) {
    guard json else {
        Terminal.write("client_id: \(clientID)")
        Terminal.write("access_token (expires in \(tokens.expiresIn) s): \(tokens.accessToken)")
        if let refresh = tokens.refreshToken { Terminal.write("refresh_token: \(refresh)") }
        if let scope = tokens.scope { Terminal.write("scope: \(scope)") }
        return
    }
    var object: [String: Any] = [
        "client_id": clientID, "access_token": tokens.accessToken, "token_type": "Bearer",
        "expires_in": tokens.expiresIn,
    ]
    if let refresh = tokens.refreshToken { object["refresh_token"] = refresh }
    if let scope = tokens.scope { object["scope"] = scope }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    Terminal.writeJSON(Array(data))
}

extension AgentClientEvents {
    /// The challenge's difficulty, then a progress line on standard error: rewritten in place on a terminal,
    /// one line every ten seconds otherwise.
    static var terminal: AgentClientEvents {
        let tty = isatty(STDERR_FILENO) == 1
        return AgentClientEvents(
            challenge: { challenge in
                let expected = AgentPoWProgress(difficulty: challenge.difficulty, attempts: 0, elapsed: 0)
                writeError("challenge: \(expected.expectation)\n")
            },
            progress: { progress in
                if tty {
                    writeError("\r\u{1B}[K" + progress.line)
                } else if Int(progress.elapsed.rounded()) % 10 == 0 {
                    writeError(progress.line + "\n")
                }
            })
    }
}

extension AgentClientEvents {
    /// Clears a progress line left on a terminal, so that what follows starts on a clean line.
    static func endProgressLine() {
        if isatty(STDERR_FILENO) == 1 { writeError("\r\u{1B}[K") }
    }
}

private func writeError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
