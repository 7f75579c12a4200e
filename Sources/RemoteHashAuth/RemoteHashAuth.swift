// Placeholder until the RemoteHashAuth module lands.
