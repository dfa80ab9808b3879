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

A recursive function can go further and take the arrays' addresses (``address_nb``), making
the views itself (``view_nb``): a call then passes one integer an array instead of the array's
nine fields, and binds nothing numba counts. The double-dummy search calls itself at every
node this way.

With ``NUMBA_DISABLE_JIT=1`` ``borrow_nb`` returns its argument, ``keep_nb`` does nothing, and
``address_nb`` and ``view_nb`` hand the array itself through.
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

else:
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
