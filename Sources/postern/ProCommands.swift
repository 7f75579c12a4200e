import ArgumentParser
import PosternApp

/// `postern pro create|list|set-password`: Pro users are created by the operator, as the hosted service does in its
/// dashboard.
struct Pro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and list Pro users of the mailbox API; set their passwords.",
        subcommands: [Create.self, List.self, SetPassword.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a Pro user.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "The Pro user's email (their login).") var email: String
        @OptionGroup var password: PasswordOptions
        @Option(name: .customLong("max-accounts"), help: "Most mailbox accounts the user may own (default 100).")
        var maxAccounts: Int?
        @Option(name: .customLong("max-domains"), help: "Most custom domains the user may add (default 5).")
        var maxDomains: Int?

        func run() async throws {
            let password = try password.read()
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            print(try await Operations.createProUser(
                configuration: configuration, email: email, password: password, maxAccounts: maxAccounts,
                maxDomains: maxDomains, logger: logger))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List Pro users and their account counts.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            for line in try await Operations.listProUsers(configuration: configuration, logger: logger) { print(line) }
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Set a Pro user's password (at least 6 characters); the tokens it signed in for stop working.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "The Pro user's email.") var email: String
        @OptionGroup var password: PasswordOptions

        func run() async throws {
            let password = try password.read()
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            guard try await Operations.setProUserPassword(
                configuration: configuration, email: email, password: password, logger: logger)
            else { throw CommandFailure("no Pro user has email '\(email)'") }
            print("password set for \(email); its earlier sign-ins ended")
        }
    }
}
