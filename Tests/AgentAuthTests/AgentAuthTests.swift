import Testing
@testable import AgentAuth
