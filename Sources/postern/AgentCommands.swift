import AgentAuth
import AgentClient
import ArgumentParser
import Foundation
import PosternApp

/// `postern agent signup|login`: an agent client that solves the proof of work on all cores.
struct Agent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign up or log in to an agent auth server (Postern or Atomic Mail) as an agent would; revoke accounts.",
        subcommands: [Signup.self, Login.self, Revoke.self])

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account; prints the API key (shown once), the inbox and a capability token.")
        @Option(help: "Base URL of the auth server, e.g. http://127.0.0.1:8080.") var url: String
        @Option(help: "Username: 5 to 21 of a-z 0-9 . _ -, starting and ending with a letter or digit.")
        var username: String
        @Option(help: "Proof-of-work salt text when the server's challenge body has none.")
        var salt: String = AgentAuthConfiguration.defaultPoWSalt

        func run() async throws {
            let credentials = try await AgentClient(salt: salt).signup(url: try baseURL(url), username: username)
            printCredentials(credentials)
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log in with an API key; prints the inbox and a capability token.")
        @Option(help: "Base URL of the auth server.") var url: String
        @Option(name: .customLong("api-key"), help: "The API key printed at signup.") var apiKey: String
        @Option(help: "Proof-of-work salt text when the server's challenge body has none.")
        var salt: String = AgentAuthConfiguration.defaultPoWSalt

        func run() async throws {
            let credentials = try await AgentClient(salt: salt).login(url: try baseURL(url), apiKey: apiKey)
            printCredentials(credentials)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an agent account of this server: its API key and sessions stop working at once.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "The agent's username.") var username: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            guard try await Operations.revokeAgent(configuration: configuration, username: username, logger: logger)
            else { throw ValidationError("no live agent account named \(username)") }
            print("revoked \(username)")
        }
    }
}

private func baseURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
        throw ValidationError("--url must be an absolute http or https URL")
    }
    return url
}

private func printCredentials(_ credentials: AgentCredentials) {
    if let apiKey = credentials.apiKey { print("apiKey: \(apiKey)") }
    print("inbox: \(credentials.inbox)")
    print("capability (expires in \(credentials.capabilityExpiresIn) s): \(credentials.capabilityToken)")
}
