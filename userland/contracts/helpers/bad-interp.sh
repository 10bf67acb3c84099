#!/contracts/helpers/no-such-interpreter
