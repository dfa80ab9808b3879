"""Borrowed arrays: a view of an array that numba does not reference-count.

numba counts references to every array a function binds, with an atomic increment and decrement
(``NRT_incref``, ``NRT_decref``); inlined helpers bind their array arguments anew, so an array
handed down the bidding's inlined calls costs four atomic operations per bid, and the
processor waits on each. A borrowed view has no owner (a null ``meminfo``): numba's counting
functions return at once for it. The caller must keep the owning array alive for as long as
the view is used (the kernels borrow arrays they allocated themselves, for the length of the
kernel call).

numba frees an array after its last use in the code, not at the end of the function: a
function that borrows an array it owns must use the owner after the last use of the view, on
every path out of it (``keep_nb``, a use that does nothing), or the view reads freed memory.

With ``NUMBA_DISABLE_JIT=1`` ``borrow_nb`` returns its argument and ``keep_nb`` does nothing.
"""

from numba import config

if config.DISABLE_JIT:

    def borrow_nb(array):
        return array

    def keep_nb(array):
        pass

else:
    from numba import types
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
