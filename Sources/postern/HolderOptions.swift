import ArgumentParser
import Logging
import PosternApp
import PosternOperations

/// What `owner show` and `pro show` take (the configuration, `--email`) and do: print what `show` finds, every way the
/// person signs in.
struct ShowOptions: ParsableArguments {
    @OptionGroup var options: DataOptions
    @Option(help: "The email of the owner or Pro user.") var email: String

    /// Prints the lines `show` gives for the configuration and email, or fails naming `holder` (`owner`, `Pro user`)
    /// when it finds nobody.
    func run(holder: String, _ show: (PosternConfiguration, _ email: String, Logger) async throws -> [String]?)
        async throws
    {
        let (configuration, logger) = try await options.loadWithLogger()
        guard let lines = try await show(configuration, email, logger) else {
            throw CommandFailure("no \(holder) has email '\(email)'")
        }
        Terminal.write(lines: lines)
    }
}

/// After `owner set-password` or `pro set-password` (issue 66 item 4): the other ways in that still stand, each with
/// when it was added, and how to remove one the person does not recognise (a passkey by `remove`, a linked provider by
/// its "Unlink" once they sign in with the new password).
func writeOtherWays(_ ways: [String], remove: String) {
    guard !ways.isEmpty else { return }
    Terminal.write("other ways in still stand (remove any added by someone else: a passkey with `\(remove)`, a linked")
    Terminal.write("  provider with \"Unlink\" in Sign-in methods once signed in with this password):")
    Terminal.write(lines: ways)
}

/// What `owner passkeys remove` and `pro passkeys remove` take (the configuration, `--email`, `--id`) and do (issue
/// 56): remove a lost device's passkey, and say what came of it.
struct PasskeyRemovalOptions: ParsableArguments {
    @OptionGroup var options: DataOptions
    @Option(help: "The email of the owner or Pro user.") var email: String
    @Option(help: "The passkey's id (from `owner show` or `pro show`).") var id: String

    /// Runs `remove` on the configuration, email and id; prints the removal, or fails naming `holder` (`owner`,
    /// `Pro user`) when nobody of that kind has the email.
    func run(
        holder: String,
        _ remove: (PosternConfiguration, _ email: String, _ id: String, Logger) async throws
            -> Operations.PasskeyRemoval
    ) async throws {
        let (configuration, logger) = try await options.loadWithLogger()
        switch try await remove(configuration, email, id, logger) {
        case .removed: Terminal.write("removed passkey \(id) of \(email)")
        case .noHolder: throw CommandFailure("no \(holder) has email '\(email)'")
        case .noPasskey: throw CommandFailure("\(email) has no passkey '\(id)'")
        }
    }
}

/// What `owner mfa reset` and `pro mfa reset` take (the configuration, `--email`) and do (issue 88 item 3): remove the
/// person's second factor, and say what came of it.
struct SecondFactorResetOptions: ParsableArguments {
    @OptionGroup var options: DataOptions
    @Option(help: "The email of the owner or Pro user.") var email: String

    /// Runs `reset` for the configuration and email, and prints what it came to, or fails naming `holder` (`owner`,
    /// `Pro user`) when nobody has the email.
    func run(
        holder: String,
        _ reset: (PosternConfiguration, _ email: String, Logger) async throws -> Operations.SecondFactorReset
    ) async throws {
        let (configuration, logger) = try await options.loadWithLogger()
        switch try await reset(configuration, email, logger) {
        case .noOwner: throw CommandFailure("no \(holder) has email '\(email)'")
        case .notSet: Terminal.write("\(email) has no second factor; nothing changed")
        case .reset: Terminal.write("second factor removed for \(email); they sign in without it")
        }
    }
}
