import Testing
@testable import JWT
