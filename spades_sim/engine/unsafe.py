"""Every unsafe trick of the engine, in one place: borrowed arrays, raw addresses, intrinsics.

Each trick trades one of numba's guarantees for speed. Each is listed with the rule that keeps
it safe; a kernel that uses one must follow that rule, and its use is tested in
``tests/test_unsafe.py`` (the kernel's own use, not only the primitive).

**Borrowed arrays** (``borrow_nb``, ``keep_nb``). numba counts references to every array a
function binds, with an atomic increment and decrement (``NRT_incref``, ``NRT_decref``); inlined
helpers bind their array arguments anew, so an array handed down the bidding's inlined calls
costs four atomic operations per bid, and the processor waits on each. A borrowed view has no
owner (a null ``meminfo``): numba's counting functions return at once for it, and a view of a
borrowed view (``view[seat]``, ``view.view(np.float64)``) is borrowed too.

    Rule: the owning array must outlive every use of the view. numba frees an array after its
    last use in the code, not at the end of the function, so a function that borrows an array
    it owns calls ``keep_nb(owner)`` after the last use of the view, on every path out of it.
    Each buffer has exactly one owner: derive further views from the borrowed view, never from
    a second owner that might be freed first. Arrays the Python layer passes in (the plug-in
    tuple) are owned by the caller for the whole kernel call.

**Raw addresses** (``address_nb``, ``view_nb``). A recursive function can pass the arrays'
addresses instead of the arrays: one integer a call instead of the array's nine fields, and
nothing numba counts. The double-dummy search calls itself at every node this way.

    Rule: only the kernel that owns the array takes its address, and it keeps the array alive
    (it is an argument of that kernel, held by its Python caller) until the recursion returns;
    ``view_nb`` is given the shape the owner has (C-contiguous int64), checked by the Python
    wrapper that allocated it.

**Prefetch** (``prefetch_nb``). A hint to the processor to bring ``array[row, column]`` into its
caches: the double-dummy transposition table is large, and its first read at a node waits on
memory.

    Rule: none for memory safety (a prefetch of any address never faults), but the element
    must be in bounds for the hint to be useful; callers index rows they are about to read.

**Single instructions** (``ctpop_nb``, ``cttz_nb``, ``ctlz_nb``, ``pdep_raw_nb``,
``pext_raw_nb``, ``mul128_fold_nb``). LLVM's bit counts, BMI2's bit deposit and gather, and the
high and low words of a 128-bit product, which numba has no operator for.

    Rule: they touch no memory; each is typed for int64 (uint64 for the product) alone, so
    numba cannot hand them another width. ``cttz_nb`` and ``ctlz_nb`` of 0 are defined (64),
    but callers pass non-empty masks. ``pdep_raw_nb`` and ``pext_raw_nb`` are an illegal
    instruction on a processor without BMI2: only ``bits.py`` calls them, and only after
    asking the host for BMI2 (numba's cache is keyed by the host processor, so a cached
    kernel never runs elsewhere).

**Direct entry points** (``entry_point``). A call through numba's dispatcher types every
argument first: a rules tuple of 40 ints takes about 4 microseconds, several times a built-in
strategy's decision (``decide.py``). The compiled function's own entry point converts the
arguments to the types it was compiled for without asking.

    Rule: the caller passes arguments of exactly the types of the example the entry point was
    compiled for (int64 ints, a uint64 state as ``np.uint64``, the same array dtypes and
    layouts, the same tuple type); a value of another type is converted, not refused, so only
    the Python wrapper that made the example calls it (``decide.Decider``).

With ``NUMBA_DISABLE_JIT=1`` every trick degrades to the plain operation: ``borrow_nb`` returns
its argument, ``keep_nb`` and ``prefetch_nb`` do nothing, ``address_nb`` and ``view_nb`` hand the
array itself through, so the whole engine still runs (and debugs) as Python.
"""

from numba import config

if config.DISABLE_JIT:

    def borrow_nb(array):
        return array

    def keep_nb(array):
        pass

    def address_nb(array):
        return array

    def view_nb(address, rows, columns):
        return address

    def prefetch_nb(array, row, column):
        return None

    # (the single instructions have plain Python forms in bits.py and rng.py)

else:
    from llvmlite import ir
    from numba import carray, njit, types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def borrow_nb(typingctx, array):
        """A view of ``array`` (same data, shape and strides) with no owner."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            source = context.make_array(array)(context, builder, args[0])
            view = context.make_array(array)(context, builder)
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            view.parent = cgutils.get_null_value(view.parent.type)
            view.nitems = source.nitems
            view.itemsize = source.itemsize
            view.data = source.data
            view.shape = source.shape
            view.strides = source.strides
            return view._getvalue()

        return array(array), codegen

    @intrinsic
    def keep_nb(typingctx, array):
        """A use of ``array`` that does nothing: numba keeps it alive up to here."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            return context.get_dummy_value()

        return types.none(array), codegen

    @intrinsic
    def _pointer_nb(typingctx, address):
        """An int64 address as a pointer to int64."""
        if not isinstance(address, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return types.CPointer(types.int64)(types.int64), codegen

    @njit(cache=True, inline="always")
    def address_nb(array):
        """The address of a C-contiguous int64 array's data (for ``view_nb``)."""
        return array.ctypes.data

    @njit(cache=True, inline="always")
    def view_nb(address, rows, columns):
        """A borrowed 2-D C-contiguous int64 view of ``rows`` by ``columns`` at ``address``."""
        return carray(_pointer_nb(address), (rows, columns))

    @intrinsic
    def prefetch_nb(typingctx, array, row, column):
        """Prefetch ``array[row, column]`` of a C-contiguous 2-D int64 array, for reading."""
        if not isinstance(array, types.Array) or array.ndim != 2:
            return None

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

    @intrinsic
    def ctpop_nb(typingctx, mask):
        """The number of set bits of an int64."""

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return types.int64(types.int64), codegen

    @intrinsic
    def cttz_nb(typingctx, mask):
        """The number of trailing zero bits of an int64 (the lowest set bit's index)."""

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return types.int64(types.int64), codegen

    @intrinsic
    def ctlz_nb(typingctx, mask):
        """The number of leading zero bits of an int64."""

        def codegen(context, builder, signature, args):
            return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

        return types.int64(types.int64), codegen

    def _bmi2_codegen(name):
        """Code for BMI2's ``name`` instruction (``pdep`` or ``pext``) on two int64."""

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            function = builder.module.declare_intrinsic(
                f"llvm.x86.bmi.{name}.64", fnty=ir.FunctionType(i64, [i64, i64])
            )
            return builder.call(function, args)

        return codegen

    @intrinsic
    def pdep_raw_nb(typingctx, source, mask):
        """BMI2's ``pdep`` (callers check the host has BMI2)."""
        return types.int64(types.int64, types.int64), _bmi2_codegen("pdep")

    @intrinsic
    def pext_raw_nb(typingctx, source, mask):
        """BMI2's ``pext`` (callers check the host has BMI2)."""
        return types.int64(types.int64, types.int64), _bmi2_codegen("pext")

    @intrinsic
    def mul128_fold_nb(typingctx, a, b):
        """``hi ^ lo`` of the 128-bit product of two uint64 (one ``mul`` on x86-64)."""

        def codegen(context, builder, signature, args):
            wide = ir.IntType(128)
            product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
            high = builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))
            return builder.xor(high, builder.trunc(product, ir.IntType(64)))

        return types.uint64(types.uint64, types.uint64), codegen


def entry_point(dispatcher, example):
    """The compiled entry point of ``dispatcher`` for the types of the arguments ``example``
    (compiled, or loaded from the cache; nothing is run)."""
    if config.DISABLE_JIT:
        return dispatcher
    signature = tuple(dispatcher.typeof_pyval(value) for value in example)
    dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point
