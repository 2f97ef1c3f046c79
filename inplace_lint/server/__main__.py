from inplace_lint.server import main

main()
