/// A command that ran and failed (nothing found, something taken, a file that cannot be written): ArgumentParser
/// prints its text alone and exits 1. `ValidationError` stays for what is wrong with the command line itself,
/// which prints the usage and exits 64 (EX_USAGE).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
