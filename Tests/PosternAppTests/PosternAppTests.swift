import Testing
@testable import PosternApp
