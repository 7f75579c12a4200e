import Testing
@testable import ComputePool
