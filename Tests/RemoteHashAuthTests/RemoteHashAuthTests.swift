import Testing
@testable import RemoteHashAuth
