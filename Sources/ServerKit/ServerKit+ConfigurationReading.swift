// Every surface's configuration type reads its keys through ConfigurationReading's reader and throws its error; they
// come with ServerKit, which each surface imports already. Targets below ServerKit (Fetch) import it themselves.
@_exported import ConfigurationReading
