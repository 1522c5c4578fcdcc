@main enum DistributedNodeMain { static func main() {} }
