import Configuration
import Foundation
import ServerKit
import SystemPackage

/// Reads ``PosternConfiguration`` through swift-configuration: command-line overrides first, then the
/// process environment, then the config file (`POSTERN_CONFIG`, default `config/postern.env`).
///
/// The default file is optional, so that `postern serve` runs from any directory with flags and the
/// environment alone; a file named by `--config` or `POSTERN_CONFIG` must exist.
///
/// Keys are the environment names of `config/postern.env` (`POSTERN_PORT`, `JWT_ISSUER`, ...). Values are
/// read as text and parsed here so that a bad value is refused with a message naming its key instead of
/// silently falling back to a default.
public enum ConfigurationLoader {
    /// The default configuration file, relative to the working directory.
    public static let defaultConfigPath = "config/postern.env"

    /// Loads and validates the configuration.
    /// - Parameters:
    ///   - configPath: An explicit file (from `--config`); a missing explicit file is an error.
    ///   - environment: The process environment; its `POSTERN_CONFIG` is an explicit file too.
    ///   - overrides: Values from command-line flags, keyed by environment name.
    ///   - defaultPath: The file read when none is named; skipped when missing.
    /// - Throws: ``ConfigurationError`` naming the key at fault, or the file error.
    public static func load(
        configPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: [String: String] = [:],
        defaultPath: String = defaultConfigPath
    ) async throws -> PosternConfiguration {
        let explicitPath = configPath ?? environment["POSTERN_CONFIG"]
        let path = explicitPath ?? defaultPath
        let file: EnvironmentVariablesProvider
        do {
            file = try await EnvironmentVariablesProvider(
                environmentFilePath: FilePath(path), allowMissing: explicitPath == nil)
        } catch {
            throw ConfigurationError(key: "POSTERN_CONFIG", message: "cannot read \"\(path)\": \(error)")
        }
        let flags = EnvironmentVariablesProvider(environmentVariables: overrides)
        let process = EnvironmentVariablesProvider(environmentVariables: environment)
        func lookup(_ reader: ConfigReader) -> (String) -> String? {
            { name in
                reader.string(
                    forKey: ConfigKey(name.lowercased().split(separator: "_").map(String.init)),
                    isSecret: name.hasPrefix("JWT_PRIVATE") || name == "POSTERN_KEY_SECRET")
            }
        }
        // A profile's defaults rank below every flag, environment variable and named file, and above the default
        // file, whose values are the same defaults the profile replaces.
        let explicit: [any ConfigProvider] = explicitPath == nil ? [flags, process] : [flags, process, file]
        let profile = try ConfigurationProfile.named(lookup(ConfigReader(providers: [flags, process, file]))("POSTERN_PROFILE"))
        var providers = explicit
        if !profile.defaults.isEmpty { providers.append(EnvironmentVariablesProvider(environmentVariables: profile.defaults)) }
        if explicitPath == nil { providers.append(file) }
        var configuration = try parse(lookup(ConfigReader(providers: providers)))
        configuration.profile = profile
        if profile.usesTemporaryDataDirectory, lookup(ConfigReader(providers: explicit))("POSTERN_DATA_DIR") == nil {
            configuration.storage.dataDirectory = NSTemporaryDirectory() + "postern-test-" + UUID().uuidString
            configuration.storage.removeDataDirectoryAtExit = true
        }
        return configuration
    }

    /// Builds a configuration from a lookup of environment-named keys; used by ``load`` and by tests.
    /// - Throws: ``ConfigurationError`` for a value that does not parse or validate.
    public static func parse(_ value: (String) -> String?) throws -> PosternConfiguration {
        try withoutActuallyEscaping(value) { value in try parse(ConfigurationReader(value)) }
    }

    /// Builds a configuration from `config`: each part reads its own keys (``PosternConfiguration/init(config:)``).
    /// - Throws: ``ConfigurationError`` for a value that does not parse or validate.
    static func parse(_ config: ConfigurationReader) throws -> PosternConfiguration {
        try PosternConfiguration(config: config)
    }
}
