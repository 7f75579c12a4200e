// Placeholder until the AgentAuth module lands.
