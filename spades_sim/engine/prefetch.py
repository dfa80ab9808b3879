"""A software prefetch: ask the CPU to bring an array element into its caches ahead of use.

The double-dummy solver's transposition table is large (its bucket heads alone are 8 MiB), so
its first read at a node waits on memory; a prefetch issued as soon as the bucket is known lets
the quick-trick bounds run while the line arrives. Without the JIT it does nothing.
"""

from numba import config

if config.DISABLE_JIT:

    def prefetch_nb(array, row, column):
        return None

else:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch_nb(typingctx, array, row, column):
        """Prefetch ``array[row, column]`` of a C-contiguous 2-D int64 array, for reading."""

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            data = context.make_array(array_type)(context, builder, args[0])
            columns = builder.extract_value(data.shape, 1)
            flat = builder.add(builder.mul(args[1], columns), args[2])
            pointer = builder.gep(data.data, [flat])
            i8_pointer = builder.bitcast(pointer, ir.IntType(8).as_pointer())
            i32 = ir.IntType(32)
            function = builder.module.declare_intrinsic(
                "llvm.prefetch", [i8_pointer.type],
                fnty=ir.FunctionType(ir.VoidType(), [i8_pointer.type, i32, i32, i32]))
            # Read (0), keep in every cache level (3), data cache (1).
            builder.call(function, [i8_pointer, ir.Constant(i32, 0), ir.Constant(i32, 3),
                                    ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return types.void(array, row, column), codegen
