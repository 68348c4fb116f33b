import Foundation
import PermitCLI

/// The `permit` executable: the command line (PermitCLI) on the process's own console.
///
/// Everything a verb does lives in PermitCLI so tests can run it in-process; this only hands
/// over the arguments and turns the answer into the process's exit status.
@main
enum PermitMain {
    static func main() async {
        let status = await PermitCommandLine.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard)
        exit(status)
    }
}
