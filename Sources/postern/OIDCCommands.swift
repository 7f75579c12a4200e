import ArgumentParser
import PosternApp
import PosternOperations

/// `postern oidc show`: the sign-in providers (issue 54) as the server would use them.
struct OIDCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oidc",
        abstract: "Show the sign-in providers (POSTERN_OIDC_*) and the redirect URI to register at each.",
        subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the redirect URI, then each provider, its rules and its discovery state (fetched now).")
        @OptionGroup var options: DataOptions

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            for line in try await Operations.showSignInProviders(configuration: configuration, logger: logger) {
                Terminal.write(line)
            }
        }
    }
}
